package work

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// Aliases returns the hidden replay-only spellings of work_update (CONTRACT.md
// §3.5): todo_write and checklist_write (full replace, same input), and the
// granular *_add, *_update and *_list. All write through ledger, the same
// writer as work_update; any `action` in their input is ignored. They are
// registered in every mode work_update is, Plan included.
func Aliases(ledger *Ledger) []tools.Tool {
	var out []tools.Tool
	for _, prefix := range []string{"todo", "checklist"} {
		w := New(ledger)
		w.ToolName, w.Hidden, w.AliasOf, w.invokedAs = prefix+"_write", true, Name, prefix+"_write"
		out = append(out, w,
			&addTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_add", addParams.Schema, false)}},
			&updateTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_update", setParams.Schema, false)}},
			&listTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_list", listParams.Schema, true)}},
		)
	}
	return out
}

func hiddenSpec(name string, schema func() map[string]any, readOnly bool) tools.Spec {
	caps := []tools.Capability{tools.CapWritesFiles}
	if readOnly {
		caps = []tools.Capability{tools.CapReadOnly}
	}
	return tools.Spec{ToolName: name, Desc: "Replay-only alias of work_update.", SchemaFunc: schema, Caps: caps,
		Hidden: true, AliasOf: Name, Approve: tools.Auto, ReadOnly: readOnly, Parallel: readOnly}
}

// The aliases' parameter contracts (docs/ARCHITECTURE.md §6); their
// schemas are built once, when first read (a replayed call). Status (and
// add's content) stay Raw: parseEntry and optionalStatus give the
// contract's messages for any JSON value, never a type error.
type (
	addInput struct {
		Content tools.Raw `json:"content"`
		Status  tools.Raw `json:"status,omitempty"`
	}
	setInput struct {
		ID     int       `json:"id"`
		Status tools.Raw `json:"status"`
	}
	listInput struct{}
)

var (
	addParams = tools.NewParams[addInput]("todo_add", tools.ParamOptions[addInput]{
		Enums: map[string][]string{"status": statusNames},
		Shape: func(s *jsonschema.Schema, _ []string) {
			s.Properties["content"].Type, s.Properties["status"].Type = "string", "string"
		}})
	setParams = tools.NewParams[setInput]("todo_update", tools.ParamOptions[setInput]{
		Enums:  map[string][]string{"status": statusNames},
		Bounds: map[string]tools.Bound{"id": {Min: 1}},
		Shape:  func(s *jsonschema.Schema, _ []string) { s.Properties["status"].Type = "string" }})
	listParams = tools.NewParams[listInput]("todo_list", tools.ParamOptions[listInput]{
		Shape: func(s *jsonschema.Schema, _ []string) { s.Properties = map[string]*jsonschema.Schema{} }})
)

// granular is the shared part of the *_add/*_update/*_list aliases.
type granular struct {
	tools.Spec
	ledger *Ledger
}

// decodeAlias decodes an alias's input once, without its `action` key: the
// alias's fixed operation always wins, and a missing field's "Input
// provided: …" does not list it.
func decodeAlias[T any](p *tools.Params[T], raw json.RawMessage) (*tools.Decoded[T], error) {
	args, err := p.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	delete(args, "action")
	return p.DecodeArgs(args, nil)
}

// sent are the decoded fields as the Args the entry readers take.
func sent[T any](d *tools.Decoded[T], fields ...string) tools.Args {
	args := tools.Args{}
	for _, f := range fields {
		if d.Has(f) {
			args[f] = d.Raw(f)
		}
	}
	return args
}

func (g *granular) reply(header string, snap Snapshot) tools.Result {
	return result(header, snap, g.ToolName)
}

type addTool struct{ granular }

// Prepare reads the item once; the canonical input is the item with its
// status spelled canonically.
func (t *addTool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decodeAlias(addParams, raw)
	if err != nil {
		return nil, err
	}
	e, err := parseEntry(sent(d, "content", "status"))
	if err != nil {
		return nil, err
	}
	canonical, err := json.Marshal(map[string]string{"content": e.Content, "status": string(e.Status)})
	if err != nil {
		return nil, tools.ExecutionFailed("%s: %v", t.ToolName, err)
	}
	return tools.NewCall(canonical, t.StaticPolicy(), func(context.Context, *tools.Context) (tools.Result, error) {
		item, snap := t.ledger.Add(e)
		return t.reply(fmt.Sprintf("Added todo #%d (%s)", item.ID, item.Status), snap), nil
	}), nil
}

func (t *addTool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

type updateTool struct{ granular }

// Prepare reads the id and status once; the canonical input has the status
// spelled canonically.
func (t *updateTool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decodeAlias(setParams, raw)
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"id", "status"} {
		if !d.Has(f) {
			return nil, d.Missing(f)
		}
	}
	id := d.In.ID
	st, err := optionalStatus(sent(d, "status"))
	if err != nil {
		return nil, err
	}
	canonical, err := json.Marshal(map[string]any{"id": id, "status": string(st)})
	if err != nil {
		return nil, tools.ExecutionFailed("%s: %v", t.ToolName, err)
	}
	return tools.NewCall(canonical, t.StaticPolicy(), func(context.Context, *tools.Context) (tools.Result, error) {
		snap, ok := t.ledger.SetStatus(id, st)
		if !ok {
			res := tools.Failed(fmt.Sprintf("Todo id %d not found", id))
			res.Metadata = map[string]any{"invoked_as": t.ToolName}
			return res, nil
		}
		return t.reply(fmt.Sprintf("Updated todo #%d to %s", id, st), snap), nil
	}), nil
}

func (t *updateTool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

type listTool struct{ granular }

// Prepare checks the input is an object; whatever it holds is ignored.
func (t *listTool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	if _, err := decodeAlias(listParams, raw); err != nil {
		return nil, err
	}
	return tools.NewCall(json.RawMessage(`{}`), t.StaticPolicy(), func(context.Context, *tools.Context) (tools.Result, error) {
		snap := t.ledger.Snapshot()
		return t.reply(fmt.Sprintf("Todo list (%d items, %d%% settled)", len(snap.Items), snap.CompletionPct), snap), nil
	}), nil
}

func (t *listTool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}
