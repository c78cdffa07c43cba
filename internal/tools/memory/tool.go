package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codewhale/codewhale/internal/tools"
)

// DisabledMessage is the exact refusal when memory is off.
const DisabledMessage = "user memory is disabled — set `[memory] enabled = true` in config.toml or `CODEWHALE_MEMORY=on` in the environment to enable"

// Options configure the remember tool.
type Options struct {
	Root      string // codewhale home; memory lives in <Root>/memory. "" = memory disabled
	Workspace string // used when the call's context names none
}

// Tool is `remember`.
type Tool struct {
	tools.Spec
	opts Options
}

// New returns `remember`: eager, writes_files, approval Auto (it writes only
// the user's own memory). Register it only when memory is enabled and never
// in Plan mode.
func New(o Options) *Tool {
	return &Tool{opts: o, Spec: tools.Spec{
		ToolName: "remember",
		Desc: "Save one durable note the user will want in future sessions: a stated preference, a convention " +
			"to keep, a fact about their workflow. One terse sentence; no secrets, no transient tasks. " +
			"scope workspace keeps it to this repository. revise or retire an entry that became wrong, " +
			"naming it in `replaces` and saying why in `evidence`.",
		Schema:  schema(),
		Caps:    []tools.Capability{tools.CapWritesFiles},
		Approve: tools.Auto,
	}}
}

func schema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{
		"note":     map[string]any{"type": "string", "description": "The note: one terse sentence (append, revise)."},
		"scope":    map[string]any{"type": "string", "enum": []any{"global", "workspace"}, "description": "global (default) or this repository."},
		"action":   map[string]any{"type": "string", "enum": []any{"append", "revise", "retire"}, "description": "append (default), revise or retire."},
		"replaces": map[string]any{"type": "string", "description": "The existing entry to revise or retire (its text, or a unique part of it)."},
		"evidence": map[string]any{"type": "string", "description": "Why the entry changes (revise, retire)."},
	}}
}

// NormalizeInput gives the exact scope and action errors before schema
// validation would.
func (t *Tool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, err
	}
	if _, _, err := parseChoice(args); err != nil {
		return nil, err
	}
	return in, nil
}

func parseChoice(args tools.Args) (Scope, string, error) {
	scope, ok, err := args.String("scope")
	if err != nil {
		return "", "", err
	}
	if !ok {
		scope = string(Global)
	}
	if scope != string(Global) && scope != string(Workspace) {
		return "", "", tools.InvalidInput("unknown memory scope `%s`; expected global or workspace", scope)
	}
	action, ok, err := args.String("action")
	if err != nil {
		return "", "", err
	}
	if !ok {
		action = "append"
	}
	if action != "append" && action != "revise" && action != "retire" {
		return "", "", tools.InvalidInput("unknown memory action `%s`; expected append, revise, or retire", action)
	}
	return Scope(scope), action, nil
}

// Execute runs the call and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "the memory file is in the system prompt")
}

func (t *Tool) execute(_ context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	if t.opts.Root == "" {
		return tools.Result{}, tools.ExecutionFailed(DisabledMessage)
	}
	args, err := tools.ParseArgs(in)
	if err != nil {
		return tools.Result{}, err
	}
	scope, action, err := parseChoice(args)
	if err != nil {
		return tools.Result{}, err
	}
	ws := t.opts.Workspace
	if tc != nil && tc.Workspace != "" {
		ws = tc.Workspace
	}
	store := NewStore(t.opts.Root)
	switch action {
	case "append":
		return t.append(store, scope, ws, args)
	case "revise":
		return t.revise(store, scope, ws, args)
	}
	return t.retire(store, scope, ws, args)
}

func (t *Tool) append(store *Store, scope Scope, ws string, args tools.Args) (tools.Result, error) {
	note, err := args.RequireString("note")
	if err != nil {
		return tools.Result{}, err
	}
	e, err := store.Append(scope, ws, note)
	if err != nil {
		return tools.Result{}, storeError(err)
	}
	return entryResult(fmt.Sprintf("remembered in native memory: %s:%d-%d", e.Path, e.Line, e.Line), e, "append"), nil
}

func (t *Tool) revise(store *Store, scope Scope, ws string, args tools.Args) (tools.Result, error) {
	fields, err := requireAll(args, "note", "replaces", "evidence")
	if err != nil {
		return tools.Result{}, err
	}
	c, err := store.Revise(scope, ws, fields[1], fields[0], fields[2])
	if err != nil {
		return tools.Result{}, storeError(err)
	}
	res := entryResult(fmt.Sprintf("revised in native memory: %s:%d-%d", c.Path, c.Line, c.Line), c.Entry, "revise")
	res.Metadata["replaced"], res.Metadata["journal"] = c.Old, c.Journal
	return res, nil
}

func (t *Tool) retire(store *Store, scope Scope, ws string, args tools.Args) (tools.Result, error) {
	fields, err := requireAll(args, "replaces", "evidence")
	if err != nil {
		return tools.Result{}, err
	}
	c, err := store.Retire(scope, ws, fields[0], fields[1])
	if err != nil {
		return tools.Result{}, storeError(err)
	}
	res := entryResult("retired from native memory: "+c.Text, c.Entry, "retire")
	res.Metadata["journal"] = c.Journal
	return res, nil
}

func requireAll(args tools.Args, fields ...string) ([]string, error) {
	out := make([]string, len(fields))
	for i, f := range fields {
		v, err := args.RequireString(f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// storeError: a request the model can fix is invalid input; the rest
// (no origin, I/O) could not run.
func storeError(err error) error {
	var in *InputError
	if errors.As(err, &in) {
		return tools.InvalidInput("%s", in.Msg)
	}
	return tools.ExecutionFailed("%s", err.Error())
}

func entryResult(content string, e Entry, action string) tools.Result {
	res := tools.OK(content)
	res.Metadata = map[string]any{"memory_backend": "native", "scope": string(e.Scope), "source": e.Path,
		"line_start": e.Line, "line_end": e.Line, "untrusted": true, "action": action}
	return res
}
