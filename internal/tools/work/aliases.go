package work

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

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
		w.ToolName, w.Hidden, w.invokedAs = prefix+"_write", true, prefix+"_write"
		out = append(out, w,
			&addTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_add", addSchema, false)}},
			&updateTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_update", setSchema, false)}},
			&listTool{granular{ledger: ledger, Spec: hiddenSpec(prefix+"_list", listSchema, true)}},
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
		Hidden: true, Approve: tools.Auto, ReadOnly: readOnly, Parallel: readOnly}
}

// The aliases' schemas are built once, when first read (a replayed call).
var (
	addSchema = sync.OnceValue(func() map[string]any {
		return map[string]any{"type": "object", "required": []any{"content"}, "properties": map[string]any{
			"content": map[string]any{"type": "string"}, "status": statusSchema()}}
	})
	setSchema = sync.OnceValue(func() map[string]any {
		return map[string]any{"type": "object", "required": []any{"id", "status"}, "properties": map[string]any{
			"id": map[string]any{"type": "integer", "minimum": 1}, "status": statusSchema()}}
	})
	listSchema = sync.OnceValue(func() map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	})
)

// granular is the shared part of the *_add/*_update/*_list aliases.
type granular struct {
	tools.Spec
	ledger *Ledger
}

// dropAction parses the input without its `action` key: the alias's fixed
// operation always wins.
func dropAction(in json.RawMessage) (tools.Args, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, err
	}
	delete(args, "action")
	return args, nil
}

func (g *granular) reply(header string, snap Snapshot) tools.Result {
	return result(header, snap, g.ToolName)
}

type addTool struct{ granular }

func (t *addTool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	args, err := dropAction(in)
	if err != nil {
		return nil, err
	}
	e, err := parseEntry(args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"content": e.Content, "status": string(e.Status)})
}

func (t *addTool) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	args, err := dropAction(in)
	if err != nil {
		return tools.Result{}, err
	}
	e, err := parseEntry(args)
	if err != nil {
		return tools.Result{}, err
	}
	item, snap := t.ledger.Add(e)
	return t.reply(fmt.Sprintf("Added todo #%d (%s)", item.ID, item.Status), snap), nil
}

type updateTool struct{ granular }

func (t *updateTool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	id, st, err := parseSet(in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"id": id, "status": string(st)})
}

func parseSet(in json.RawMessage) (int, Status, error) {
	args, err := dropAction(in)
	if err != nil {
		return 0, "", err
	}
	id, ok, err := args.Int("id")
	if err != nil {
		return 0, "", err
	}
	if !ok {
		return 0, "", args.Missing("id")
	}
	if !args.Has("status") {
		return 0, "", args.Missing("status")
	}
	st, err := optionalStatus(args)
	return id, st, err
}

func (t *updateTool) Execute(_ context.Context, _ *tools.Context, in json.RawMessage) (tools.Result, error) {
	id, st, err := parseSet(in)
	if err != nil {
		return tools.Result{}, err
	}
	snap, ok := t.ledger.SetStatus(id, st)
	if !ok {
		res := tools.Failed(fmt.Sprintf("Todo id %d not found", id))
		res.Metadata = map[string]any{"invoked_as": t.ToolName}
		return res, nil
	}
	return t.reply(fmt.Sprintf("Updated todo #%d to %s", id, st), snap), nil
}

type listTool struct{ granular }

func (t *listTool) NormalizeInput(in json.RawMessage) (json.RawMessage, error) {
	if _, err := dropAction(in); err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}

func (t *listTool) Execute(_ context.Context, _ *tools.Context, _ json.RawMessage) (tools.Result, error) {
	snap := t.ledger.Snapshot()
	return t.reply(fmt.Sprintf("Todo list (%d items, %d%% settled)", len(snap.Items), snap.CompletionPct), snap), nil
}
