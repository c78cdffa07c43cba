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
		web := s.Web
		o.FetchApproval = func(url string) tools.Approval {
			return web.ApprovalFor(fetchInput(url))
		}
		o.Fetch = func(ctx context.Context, url string) (string, error) {
			res, err := tools.Run(ctx, web, &tools.Context{Workspace: a.Cfg.Workspace, Budget: 1 << 30}, fetchInput(url))
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
		}
	}
	return rlm.New(o)
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
