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
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapWritesFiles},
		Approve:    tools.Auto,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the exact
// scope and action errors come from the decoder; the bound call runs it.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	return tools.NewCall(raw, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, d)
		return tools.Sized(res, err, tc, "the memory file is in the system prompt")
	}), nil
}

// Execute decodes and runs one call (tools.Execute), sizing its result to
// the call's budget (tools.Sized).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	if t.opts.Root == "" {
		return tools.Result{}, tools.ExecutionFailed(DisabledMessage)
	}
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(_ context.Context, tc *tools.Context, d *tools.Decoded[input]) (tools.Result, error) {
	if t.opts.Root == "" {
		return tools.Result{}, tools.ExecutionFailed(DisabledMessage)
	}
	ws := t.opts.Workspace
	if tc != nil && tc.Workspace != "" {
		ws = tc.Workspace
	}
	store, in := NewStore(t.opts.Root), d.In
	scope := Scope(in.Scope)
	switch in.Action {
	case "append":
		if err := require(d, "note"); err != nil {
			return tools.Result{}, err
		}
		e, err := store.Append(scope, ws, in.Note)
		if err != nil {
			return tools.Result{}, storeError(err)
		}
		return entryResult(fmt.Sprintf("remembered in native memory: %s:%d-%d", e.Path, e.Line, e.Line), e, "append"), nil
	case "revise":
		if err := require(d, "note", "replaces", "evidence"); err != nil {
			return tools.Result{}, err
		}
		c, err := store.Revise(scope, ws, in.Replaces, in.Note, in.Evidence)
		if err != nil {
			return tools.Result{}, storeError(err)
		}
		res := entryResult(fmt.Sprintf("revised in native memory: %s:%d-%d", c.Path, c.Line, c.Line), c.Entry, "revise")
		res.Metadata["replaced"], res.Metadata["journal"] = c.Old, c.Journal
		return res, nil
	}
	if err := require(d, "replaces", "evidence"); err != nil {
		return tools.Result{}, err
	}
	c, err := store.Retire(scope, ws, in.Replaces, in.Evidence)
	if err != nil {
		return tools.Result{}, storeError(err)
	}
	res := entryResult("retired from native memory: "+c.Text, c.Entry, "retire")
	res.Metadata["journal"] = c.Journal
	return res, nil
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
