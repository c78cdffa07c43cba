// Package rlm is the deferred `rlm` action family (docs/CONTRACT.md, rlm): a
// persistent, sandboxed Python session per name for contexts too big for
// the transcript. `open` binds a file, text, URL or session object as
// `content` and returns only its size, preview and digest; `eval` runs code
// (approval required) whose large outputs and FINAL values come back as
// handles; helpers in the kernel ask codewhale for tool-less child model
// queries (docs/RLM.md has the kernel protocol).
package rlm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// ToolName is the family's name.
const ToolName = "rlm"

// Actions in the contract's order for errors (the table's).
var Actions = rlmActions.Names()

// Bounds.
const (
	maxContentChars    = 200_000
	outputInline       = 1000
	defaultEvalTimeout = 60 * time.Second
	maxEvalTimeout     = 600 * time.Second
)

// Options configure the tool.
type Options struct {
	// Python is the interpreter; "" finds python3 on PATH past the
	// workspace's directories (internal/binpath).
	Python string
	// Workspace is the workspace root, whose PATH directories (an activated
	// .venv/bin) are never searched for python3: a File patch could have
	// put a python3 there, and open and eval run without asking.
	Workspace string
	// ScratchRoot holds each session's scratch directory ("" = the system
	// temp dir).
	ScratchRoot string
	// Start starts a kernel under the OS sandbox (nil: unconfined; the
	// kernel's audit hook is advisory, docs/RLM.md).
	Start Starter
	// SandboxLabel says what confines the kernel, for results and receipts.
	SandboxLabel string
	// Env is the kernel's environment: the scrubbed one Bash gets
	// (sandbox.Environ); nil is a minimal one.
	Env []string
	// Commands is the command classifier (internal/shellpolicy) an eval's
	// code is judged by, as `python3 -c CODE`; nil knows no home or
	// workspace (hard blocks and the credential guard still hold).
	Commands *shellpolicy.Env
	// Query makes child model requests (nil: the helpers fail clearly).
	Query Querier
	// Handles keeps large outputs and FINAL values; Sources serve
	// session_object handles.
	Handles *handles.Store
	Sources []handles.Source
	// Transcript returns the conversation so far, for session_object
	// "transcript" (nil: not offered).
	Transcript func() string
	// Fetch prepares reading url through the Web tool's path and policy
	// (nil: url is refused): the approval the read needs (with the reason
	// of an explicit one) and the read, which runs only once the open
	// holding it was approved. A refusal (a URL the Web tool does not take)
	// refuses the open.
	Fetch func(url string) (tools.Policy, func(context.Context) (string, error), error)
	// EvalTimeout is the default time limit of an eval (0: 60 s).
	EvalTimeout time.Duration
}

// Tool is rlm. It owns its sessions; Close ends them.
type Tool struct {
	tools.Spec
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	parent   *Tool   // a sub-agent's tool sees the parent's shared sessions
	children []*Tool // closed with this one

	pyMu sync.Mutex
	pys  map[string]Interpreter // probed interpreters, by the path found
}

// NewChild returns the rlm tool of a sub-agent: its own sessions, plus the
// parent's sessions configured with share_session.
func (t *Tool) NewChild() *Tool {
	c := New(t.opts)
	c.parent = t
	t.pyMu.Lock()
	for k, v := range t.pys {
		c.pys[k] = v
	}
	t.pyMu.Unlock()
	t.mu.Lock()
	t.children = append(t.children, c)
	t.mu.Unlock()
	return c
}

// New returns the rlm tool.
func New(opts Options) *Tool {
	return &Tool{opts: opts, sessions: map[string]*session{}, pys: map[string]Interpreter{}, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "A persistent Python session over content too big for the transcript (a large file, log, page or " +
			"transcript): analyze it with code instead of reading it. open {name, exactly one of file_path, " +
			"content, url, session_object} binds it as the str `content` and returns only its length, preview and " +
			"sha256. eval {name, code} runs Python (needs approval): short output comes back inline, long output and " +
			"FINAL(value) results as handles for handle_read. In code: sub_query(prompt, text), " +
			"sub_query_batch(prompt, slices) (1-16 concurrent one-shot children), sub_query_map, sub_query_sequence, " +
			"sub_rlm. configure {name, output_feedback, sub_query_timeout_secs, sub_rlm_max_depth, share_session}; " +
			"close {name}; session_objects lists what can be opened. No network, no processes, writes only in " +
			"its scratch directory.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapNetwork, tools.CapExecutesCode, tools.CapSandboxable},
		Deferred:   true,
		Approve:    tools.Required,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and decides
// its policy from the decoded action: eval is judged as Bash judges its
// code (evalPolicy: Required, Explicit with the reason, or a hard block);
// an open of a url takes the prepared Web fetch's approval; the others are
// Auto; session_objects alone is read-only.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decodeInput(raw)
	if err != nil {
		return nil, err
	}
	p := tools.Policy{Approval: tools.Auto}
	var fetch func(context.Context) (string, error)
	var v shellpolicy.Verdict
	switch d.Action {
	case "eval":
		v = t.codeVerdict(d.In.Code)
		p = evalPolicy(v)
	case "session_objects":
		p.ReadOnly = true
	case "open":
		if d.Has("url") && t.opts.Fetch != nil {
			var fp tools.Policy
			if fp, fetch, err = t.opts.Fetch(d.In.URL); err != nil {
				return nil, err
			}
			p.Approval, p.Reason = fp.Approval, fp.Reason
		}
	}
	return tools.NewCall(d.Input(), p, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		if d.Action == "eval" && v.Class == shellpolicy.Blocked {
			return blocked(v), nil // in every posture, Full Access included
		}
		res, err := t.run(ctx, tc, d, fetch)
		return tools.Sized(res, err, tc, "print less per eval, or slice the object in Python and print the part you need")
	}), nil
}

// python is the interpreter to start, or a model-readable error saying
// there is none.
func (t *Tool) python() (string, error) {
	var p string
	var err error
	if t.opts.Python != "" {
		p, err = exec.LookPath(t.opts.Python)
	} else {
		p, err = binpath.LookPath("python3", t.opts.Workspace)
	}
	if err != nil {
		return "", tools.NotAvailable("rlm: python3 is not installed (install Python 3.8 or newer, e.g. apt install python3)")
	}
	return p, nil
}

func (t *Tool) kernelEnv() []string {
	if t.opts.Env != nil {
		return t.opts.Env
	}
	return []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + os.TempDir()}
}

func (t *Tool) evalTimeout() time.Duration {
	if t.opts.EvalTimeout > 0 {
		return t.opts.EvalTimeout
	}
	return defaultEvalTimeout
}

func (t *Tool) newSession(name string, depth int) (*session, error) {
	if _, err := t.interpreter(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(t.opts.ScratchRoot, "codewhale-rlm-*")
	if err != nil {
		return nil, tools.ExecutionFailed("rlm: creating a scratch directory: %v", err)
	}
	return &session{name: name, depth: depth, scratch: dir, cfg: defaultConfig()}, nil
}

// get returns the named session; create starts a new one when absent.
func (t *Tool) get(name string, create bool) (*session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.sessions[name]; ok {
		return s, nil
	}
	if p := t.parent; p != nil {
		p.mu.Lock()
		s, ok := p.sessions[name]
		p.mu.Unlock()
		if ok && s.cfg.ShareSession {
			return s, nil
		}
	}
	if !create {
		names := make([]string, 0, len(t.sessions))
		for n := range t.sessions {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, tools.InvalidInput("rlm: no session %q is open; call open first", name)
		}
		return nil, tools.InvalidInput("rlm: no session %q is open (open: %s)", name, strings.Join(names, ", "))
	}
	s, err := t.newSession(name, 0)
	if err != nil {
		return nil, err
	}
	t.sessions[name] = s
	return s, nil
}

// Close ends every session (the session's end).
func (t *Tool) Close() {
	t.mu.Lock()
	all, children := t.sessions, t.children
	t.sessions, t.children = map[string]*session{}, nil
	t.mu.Unlock()
	for _, c := range children {
		c.Close()
	}
	for _, s := range all {
		s.close()
	}
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, d *tools.Decoded[contract], fetch func(context.Context) (string, error)) (tools.Result, error) {
	name := strings.TrimSpace(d.In.Name)
	if name == "" {
		name = "default"
	}
	switch d.Action {
	case "session_objects":
		return t.sessionObjects()
	case "open":
		return t.open(ctx, tc, name, d, fetch)
	case "eval":
		return t.eval(ctx, name, &d.In)
	case "configure":
		return t.configure(name, d)
	default:
		return t.close(name)
	}
}

func jsonResult(v any, meta map[string]any) tools.Result {
	b, _ := json.Marshal(v)
	res := tools.OK(string(b))
	res.Metadata = meta
	return res
}
