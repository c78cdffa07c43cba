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

// rlmSandbox confines a Python kernel for interpreter py: it reads only
// the system's directories, the workspace and py's own directories (a read
// allow-list leaving out the user's dotfiles, /proc, $CODEWHALE_HOME and the
// config file: sandbox.PrivateReads), writes only its scratch root and
// reaches no network (child queries and fetches go through this process).
func (a *App) rlmSandbox(scratch string, py rlm.Interpreter) *sandbox.Sandbox {
	home, _ := os.UserHomeDir()
	reads := sandbox.PrivateReads(home, []string{a.Cfg.Home, a.Cfg.Path}, append([]string{a.Cfg.Workspace}, py.Dirs...)...)
	return a.Sandbox.WithPolicy(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: scratch, Reads: reads})
}

// rlmLabel says what confines the kernels, for results and receipts.
func rlmLabel(sb *sandbox.Sandbox) string {
	rest := "; no new processes (RLIMIT_NPROC 0); python audit hook (advisory)"
	if _, ok := sandbox.NoProcessesFilter(); ok {
		rest = "; no new processes or programs (RLIMIT_NPROC 0 and a seccomp filter); python audit hook (advisory)"
	}
	st := sb.Status()
	if !st.Enforced {
		return "the OS sandbox is unenforced (" + st.Reason + ")" + rest
	}
	return "OS sandbox (" + string(st.Mechanism) + ": reads only the system, the workspace and Python's own " +
		"directories, writes only in its scratch dir, network " + st.Network + ")" + rest
}

// newRLM builds the session's rlm tool: child queries through this
// session's provider client, URLs through its Web tool, the transcript from
// its journal, scratch under $CODEWHALE_HOME/tmp, each kernel under
// rlmSandbox with the environment Bash gets, and eval judged by the
// session's command classifier.
func (a *App) newRLM() *rlm.Tool {
	s := a.Services
	scratch := filepath.Join(a.Cfg.Home, "tmp", "rlm")
	_ = os.MkdirAll(scratch, 0o700)
	sb := a.rlmSandbox(scratch, rlm.Interpreter{})
	o := rlm.Options{ScratchRoot: scratch, Workspace: a.Cfg.Workspace, Handles: s.Handles, Query: a.childQuery,
		SandboxLabel: rlmLabel(sb), Env: sb.Environ(), Commands: s.CommandEnv(),
		Sources: []handles.Source{s.Handles, a.Agents.HandleSource()},
		Start: func(cmd *exec.Cmd, py rlm.Interpreter) (func() error, error) {
			p, err := a.rlmSandbox(scratch, py).Start(cmd)
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
