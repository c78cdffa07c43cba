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
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// ToolName is the family's name.
const ToolName = "rlm"

// Actions in the contract's order for errors.
var Actions = []string{"session_objects", "open", "eval", "configure", "close"}

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
	// Start starts a kernel under the OS sandbox (nil: unconfined, the
	// kernel's own audit hook the only fence).
	Start Starter
	// SandboxLabel says what confines the kernel, for results and receipts.
	SandboxLabel string
	// Env is the kernel's environment (scrubbed of secrets); nil is a
	// minimal one.
	Env []string
	// Query makes child model requests (nil: the helpers fail clearly).
	Query Querier
	// Handles keeps large outputs and FINAL values; Sources serve
	// session_object handles.
	Handles *handles.Store
	Sources []handles.Source
	// Transcript returns the conversation so far, for session_object
	// "transcript" (nil: not offered).
	Transcript func() string
	// Fetch reads a URL through the Web tool's path and policy (nil: url
	// is refused).
	Fetch func(ctx context.Context, url string) (string, error)
	// FetchApproval is the Web tool's approval for fetching url.
	FetchApproval func(url string) tools.Approval
	// EvalTimeout is the default time limit of an eval (0: 60 s).
	EvalTimeout time.Duration
	// ReadPath resolves file_path inside the workspace boundary; nil uses
	// the call's tools.Context.
	ReadPath func(tc *tools.Context, raw string) (string, error)
}

// Tool is rlm. It owns its sessions; Close ends them.
type Tool struct {
	tools.Spec
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	parent   *Tool   // a sub-agent's tool sees the parent's shared sessions
	children []*Tool // closed with this one
}

// NewChild returns the rlm tool of a sub-agent: its own sessions, plus the
// parent's sessions configured with share_session.
func (t *Tool) NewChild() *Tool {
	c := New(t.opts)
	c.parent = t
	t.mu.Lock()
	t.children = append(t.children, c)
	t.mu.Unlock()
	return c
}

// New returns the rlm tool.
func New(opts Options) *Tool {
	return &Tool{opts: opts, sessions: map[string]*session{}, Spec: tools.Spec{
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
		SchemaFunc: schema,
		Caps:       []tools.Capability{tools.CapNetwork, tools.CapExecutesCode, tools.CapSandboxable},
		Deferred:   true,
		Approve:    tools.Required,
	}}
}

var schema = sync.OnceValue(func() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	return map[string]any{"type": "object", "required": []any{"action"}, "additionalProperties": false,
		"properties": map[string]any{
			"action":                 map[string]any{"type": "string", "enum": []any{"session_objects", "open", "eval", "configure", "close"}, "description": "Operation."},
			"name":                   str("Session name (default \"default\")."),
			"file_path":              str("open: a workspace file."),
			"content":                str("open: the text itself (at most 200000 characters)."),
			"url":                    str("open: an http(s) URL, fetched through the Web tool's policy."),
			"session_object":         str("open: \"transcript\" or a handle's session_id (see session_objects)."),
			"code":                   str("eval: Python to run; `content` holds the opened text."),
			"timeout_ms":             map[string]any{"type": "integer", "minimum": 1, "description": "eval: time limit, default 60000, max 600000."},
			"output_feedback":        map[string]any{"type": "string", "enum": []any{"full", "metadata"}, "description": "configure: full (output inline when short) or metadata (always handles)."},
			"sub_query_timeout_secs": map[string]any{"type": "integer", "minimum": 1, "maximum": 3600, "description": "configure: each child query's time limit (default 120)."},
			"sub_rlm_max_depth":      map[string]any{"type": "integer", "minimum": 0, "maximum": 3, "description": "configure: how deep sub_rlm may nest (default 2)."},
			"share_session":          map[string]any{"type": "boolean", "description": "configure: let sub-agents use this named session."},
		}}
})

// misplaced are open's fields models guess; the hint names the real ones.
var misplaced = []string{"prompt", "text", "body", "path", "file", "source", "resident_file"}

// NormalizeInput gives the family's exact messages: a missing or unknown
// action, and for open a hint when a guessed field stands in for the
// source.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	action, err := args.FamilyAction(ToolName, Actions)
	if err != nil {
		return nil, err
	}
	if action == "open" {
		for _, k := range misplaced {
			if args.Has(k) {
				return nil, tools.InvalidInput("rlm: open takes its source as one of file_path, content, url or "+
					"session_object; `%s` is not one of them", k)
			}
		}
	}
	return raw, nil
}

// ApprovalFor: eval is Required; an open of a URL takes the Web fetch's
// approval; everything else is Auto.
func (t *Tool) ApprovalFor(raw json.RawMessage) tools.Approval {
	var p struct {
		Action, URL string
	}
	_ = json.Unmarshal(raw, &p)
	switch {
	case p.Action == "eval":
		return tools.Required
	case p.Action == "open" && p.URL != "" && t.opts.FetchApproval != nil:
		return t.opts.FetchApproval(p.URL)
	case p.Action == "" || !contains(Actions, p.Action):
		return tools.Required
	}
	return tools.Auto
}

// ReadOnlyFor is true for session_objects (the others start, change or end a
// kernel).
func (t *Tool) ReadOnlyFor(raw json.RawMessage) bool {
	return tools.PeekAction(raw, "") == "session_objects"
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
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
	if _, err := t.python(); err != nil {
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

// Execute runs one action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "print less per eval, or slice the object in Python and print the part you need")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return tools.Result{}, err
	}
	action, err := args.FamilyAction(ToolName, Actions)
	if err != nil {
		return tools.Result{}, err
	}
	name, _, err := args.String("name")
	if err != nil {
		return tools.Result{}, err
	}
	if name = strings.TrimSpace(name); name == "" {
		name = "default"
	}
	switch action {
	case "session_objects":
		return t.sessionObjects()
	case "open":
		return t.open(ctx, tc, name, args)
	case "eval":
		return t.eval(ctx, tc, name, args)
	case "configure":
		return t.configure(name, args)
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
