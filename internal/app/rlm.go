package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/agent"
	"github.com/codewhale/codewhale/internal/tools/handles"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/web"
)

// rlmSandbox confines the Python kernels: they read anything, write only
// beneath the scratch root and reach no network (child queries and fetches
// go through this process). The kernel's audit hook fences it from inside
// as well.
func (a *App) rlmSandbox(scratch string) (*sandbox.Sandbox, string) {
	sb := a.Sandbox.WithPolicy(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: scratch})
	const hook = "python audit hook (in-process: no processes, no network, writes only in its scratch dir)"
	st := sb.Status()
	if !st.Enforced {
		return sb, hook + "; the OS sandbox is unenforced (" + st.Reason + ")"
	}
	return sb, "OS sandbox (" + string(st.Mechanism) + ": writes only in its scratch dir, network " + st.Network + ") and " + hook
}

// newRLM builds the session's rlm tool: child queries through this
// session's provider client, URLs through its Web tool, the transcript from
// its journal, scratch under $CODEWHALE_HOME/tmp.
func (a *App) newRLM() *rlm.Tool {
	s := a.Services
	scratch := filepath.Join(a.Cfg.Home, "tmp", "rlm")
	_ = os.MkdirAll(scratch, 0o700)
	sb, label := a.rlmSandbox(scratch)
	o := rlm.Options{ScratchRoot: scratch, Workspace: a.Cfg.Workspace, Handles: s.Handles, Query: a.childQuery, SandboxLabel: label,
		Sources: []handles.Source{s.Handles, a.Agents.HandleSource()},
		Start: func(cmd *exec.Cmd) (func() error, error) {
			p, err := sb.Start(cmd)
			if err != nil {
				return nil, err
			}
			return p.Wait, nil
		}}
	if a.Journal != nil {
		o.Transcript = func() string {
			l, err := session.Load(a.Journal.Path())
			if err != nil {
				return ""
			}
			return agent.RenderTranscript(l.Session.Messages)
		}
	}
	if s.Web != nil {
		o.Fetch = rlmFetch(s.Web, a.Cfg.Workspace)
	}
	return rlm.New(o)
}

// rlmFetch prepares rlm's url reads through the Web tool's path and
// policy: rlm's open takes the prepared fetch's approval, and the fetch it
// runs is that same prepared call, so the host is classified once and a
// name rebound to a private address after an Auto approval is refused at
// connect time rather than reached unasked.
func rlmFetch(web *web.Tool, workspace string) func(string) (tools.Policy, func(context.Context) (string, error), error) {
	return func(url string) (tools.Policy, func(context.Context) (string, error), error) {
		c, err := tools.PrepareCall(web, fetchInput(url))
		if err != nil {
			return tools.Policy{}, nil, err
		}
		return c.Policy, func(ctx context.Context) (string, error) {
			res, err := c.Run(ctx, &tools.Context{Workspace: workspace, Budget: 1 << 30})
			if err != nil {
				return "", err
			}
			var f struct {
				Content string
				Status  int
			}
			if err := json.Unmarshal([]byte(res.Content), &f); err != nil {
				return "", fmt.Errorf("rlm: unreadable fetch result: %w", err)
			}
			if !res.Success {
				return "", fmt.Errorf("rlm: fetching %s answered HTTP %d", url, f.Status)
			}
			return f.Content, nil
		}, nil
	}
}

func fetchInput(url string) json.RawMessage {
	in, _ := json.Marshal(map[string]any{"action": "fetch", "url": url, "format": "text", "max_bytes": 10 << 20})
	return in
}

// childQuery is one tool-less, one-shot request with this session's
// provider client (rlm's sub_query and friends).
func (a *App) childQuery(ctx context.Context, system, user string) (string, provider.Usage, error) {
	client, err := a.NewClient(a.Cfg.Model)
	if err != nil {
		return "", provider.Usage{}, err
	}
	resp, err := client.Complete(ctx, &provider.Request{Model: a.Cfg.Model, System: system, MaxTokens: 4096,
		Messages: []provider.Message{provider.UserText(user)}})
	if err != nil {
		return "", provider.Usage{}, err
	}
	var u provider.Usage
	if resp.Usage != nil {
		u = *resp.Usage
	}
	return resp.Text(), u, nil
}
