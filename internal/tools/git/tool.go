package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/fit"
)

// Actions are the Git actions, in the order the contract lists them.
var Actions = []string{"status", "diff", "log", "show", "blame"}

// ToolName is the canonical name of the tool.
const ToolName = "Git"

// Options configure New. The zero value looks for a git binary on PATH.
type Options struct {
	// DisableCLI forces the go-git backend for every action, as if no git
	// binary were installed.
	DisableCLI bool
	// GitPath is the git binary to use; empty means "git" looked up on PATH.
	GitPath string
}

// Tool is the canonical Git tool. It is stateless: every call opens the
// repository afresh, so one value serves concurrent calls.
type Tool struct {
	tools.Spec
	native backend
	cli    func() backend // the git binary's backend, found on first use; nil when there is none
}

// New returns the Git tool. At most one Options value is used.
func New(opts ...Options) *Tool {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	t := &Tool{native: nativeBackend{}, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "Inspect repository state and history without parsing shell output. Actions: status " +
			"(porcelain v1 with branch line), diff (unstaged, or staged with cached), log (recent commits), " +
			"show (one commit, tag, tree or blob), blame (a file's lines with their commits). Read-only. " +
			"`path` scopes the action to a directory or file inside the workspace.",
		Schema:   schema(),
		Caps:     []tools.Capability{tools.CapReadOnly, tools.CapSandboxable},
		Approve:  tools.Auto,
		ReadOnly: true,
		Parallel: true,
	}}
	switch {
	case o.DisableCLI:
		t.cli = func() backend { return nil }
	case o.GitPath == "":
		t.cli = gitOnPath
	default:
		t.cli = sync.OnceValue(func() backend { return lookupCLI(o.GitPath) })
	}
	return t
}

// gitOnPath is looked up once per process, on the first call that needs it:
// the registry is rebuilt every turn and a PATH search is not free.
var gitOnPath = sync.OnceValue(func() backend { return lookupCLI("git") })

func lookupCLI(name string) backend {
	bin, err := exec.LookPath(name)
	if err != nil {
		return nil
	}
	return cliBackend{bin: bin}
}

func schema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"action": map[string]any{"type": "string", "enum": Actions,
				"description": "What to read: status, diff, log, show or blame."},
			"path":       str("Optional directory or file (inside the workspace) to scope the action to; blame requires a file."),
			"cached":     boolean("diff: show staged changes (index against HEAD) instead of unstaged ones. Default false."),
			"unified":    integer("diff, show: context lines around each change. Default 3, at most 50."),
			"max_count":  integer("log: number of commits. Default 20, clamped to 1..200."),
			"author":     str("log: only commits whose author matches this pattern (git --author)."),
			"since":      str("log: only commits more recent than this date (git --since, e.g. 2024-01-31 or '2 weeks ago')."),
			"until":      str("log: only commits older than this date (git --until)."),
			"rev":        str("show: the revision to show (required). blame: the revision to blame at (default HEAD)."),
			"patch":      boolean("show: include the patch. Default true."),
			"stat":       boolean("show: include the diffstat. Default true."),
			"start_line": integer("blame: first line to blame. Default 1."),
			"max_lines":  integer("blame: number of lines to blame. Default 200, clamped to 1..2000."),
			"porcelain":  boolean("blame: machine-readable --line-porcelain output instead of the default format. Default false."),
		},
		"required":             []string{"action"},
		"additionalProperties": false,
	}
}

// NormalizeInput gives the contract's exact messages for a missing,
// non-string or unknown action before the schema would.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, err
	}
	if _, err := args.Action(ToolName, Actions, ""); err != nil {
		return nil, err
	}
	return in, nil
}

// Execute runs one Git action. A refused call (bad input, a path outside the
// workspace) is an error; a git read that ran and failed is a failed Result.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return tools.Result{}, err
	}
	action, err := args.Action(ToolName, Actions, "")
	if err != nil {
		return tools.Result{}, err
	}
	req, err := parseRequest(tc, action, args)
	if err != nil {
		return tools.Result{}, err
	}
	b := t.backendFor(req)
	text, err := b.run(ctx, req)
	var fe *failure
	if errors.As(err, &fe) && fe.needsCLI {
		cli := t.cli()
		if cli == nil {
			res := tools.Failed(fe.msg + "; git is not installed or not in PATH, so nothing was run. Without it, Git " +
				"status, log and show (commits with patch:false and stat:false, tags, trees, blobs) still work.")
			res.Metadata = req.metadata(b.name())
			return res, nil
		}
		b = cli
		text, err = b.run(ctx, req)
	}
	if err == nil && req.kind == scopeMissing && emptyRead(req.action, text) {
		known, kerr := b.knows(ctx, req)
		if kerr == nil && !known {
			return tools.Result{}, unknownPath(req.rawPath)
		}
	}
	meta := req.metadata(b.name())
	if err != nil {
		if errors.As(err, &fe) {
			// git's stderr is short, but a hostile repository can make it
			// long; it is cut to the budget like any output.
			res := tools.Failed(fit.Text(req.failurePrefix()+fe.msg, min(maxOutputChars, tc.ResultBudget())))
			res.Metadata = meta
			return res, nil
		}
		if ctx.Err() != nil {
			return tools.Result{}, tools.Cancelled(fmt.Sprintf("git %s was cancelled", action))
		}
		return tools.Result{}, tools.AsError(err)
	}
	content, truncated, omitted := fitOutput(req, text, min(maxOutputChars, tc.ResultBudget()))
	meta["truncated"], meta["omitted_chars"] = truncated, omitted
	res := tools.OK(content)
	res.Metadata = meta
	return res, nil
}

// backendFor picks the backend for a request (see the package doc).
func (t *Tool) backendFor(r *request) backend {
	cli := t.cli()
	if cli == nil || r.action == "log" {
		return t.native
	}
	return cli
}
