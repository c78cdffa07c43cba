package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/budget"
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
	cli    func(workspace string) backend // the git binary's backend, found on first use; nil when there is none
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
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly, tools.CapSandboxable},
		Approve:    tools.Auto,
		ReadOnly:   true,
		Parallel:   true,
	}}
	switch {
	case o.DisableCLI:
		t.cli = func(string) backend { return nil }
	case o.GitPath == "":
		t.cli = gitOnPath
	default:
		found := sync.OnceValue(func() backend { return lookupCLI(o.GitPath, "") })
		t.cli = func(string) backend { return found() }
	}
	return t
}

// gitOnPath is looked up once per workspace, on the first call that needs
// it: the registry is rebuilt every turn and a PATH search is not free. A
// PATH entry inside the workspace is skipped (binpath): a File patch could
// have put a git there, and this tool runs it without asking.
func gitOnPath(workspace string) backend {
	v, ok := gitOnPathCache.Load(workspace)
	if !ok {
		v, _ = gitOnPathCache.LoadOrStore(workspace, lookupCLI("git", workspace))
	}
	b, _ := v.(backend) // nil when there is no git
	return b
}

var gitOnPathCache sync.Map // workspace → backend, or nil when there is no git

func lookupCLI(name, workspace string) backend {
	bin, err := binpath.LookPath(name, workspace)
	if err != nil {
		return nil
	}
	return cliBackend{bin: bin}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the exact
// action messages, the closed schema's refusals, the value rules. Every Git
// call is Auto, read-only and parallel-safe.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	req, err := newRequest(d)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(d.Input(), t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		r := *req // a call may run twice (a re-run outside the sandbox); each run resolves afresh
		if err := r.resolve(tc, d); err != nil {
			return tools.Result{}, err
		}
		return t.run(ctx, tc, &r)
	}), nil
}

// Execute decodes and runs one Git call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// run runs one Git action. A refused call (bad input, a path outside the
// workspace) is an error; a git read that ran and failed is a failed Result.
func (t *Tool) run(ctx context.Context, tc *tools.Context, req *request) (tools.Result, error) {
	action := req.action
	if err := refuseSecret(req); err != nil {
		return tools.Result{}, err
	}
	b := t.backendFor(tc, req)
	if err := checkShowScope(ctx, tc, t.exactBackend(tc), req); err != nil {
		return tools.Result{}, err
	}
	text, err := b.run(ctx, req)
	var fe *failure
	if errors.As(err, &fe) && fe.needsCLI {
		cli := t.cli(tc.Workspace)
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
			res := tools.Failed(budget.Text(req.failurePrefix()+fe.msg, min(maxOutputChars, tc.ResultBudget())))
			res.Metadata = meta
			return res, nil
		}
		if ctx.Err() != nil {
			return tools.Result{}, tools.Cancelled(fmt.Sprintf("git %s was cancelled", action))
		}
		return tools.Result{}, tools.AsError(err)
	}
	content, truncated, omitted := fitOutput(req, hideSecretFiles(req, text), min(maxOutputChars, tc.ResultBudget()))
	meta["truncated"], meta["omitted_chars"] = truncated, omitted
	res := tools.OK(content)
	res.Metadata = meta
	return res, nil
}

// exactBackend is the git binary when there is one, else go-git.
func (t *Tool) exactBackend(tc *tools.Context) backend {
	if cli := t.cli(tc.Workspace); cli != nil {
		return cli
	}
	return t.native
}

// backendFor picks the backend for a request (see the package doc).
func (t *Tool) backendFor(tc *tools.Context, r *request) backend {
	cli := t.cli(tc.Workspace)
	if cli == nil {
		return t.native
	}
	return cli
}
