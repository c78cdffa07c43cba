package work

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

const description = "Replace the To-do list of the current thread or task: the concrete work items the user " +
	"watches. Send the whole list every time (it replaces the previous one). Keep it live while you work: mark " +
	"an item in_progress before starting it (exactly one at a time) and call work_update again the moment an " +
	"item finishes so it shows completed; never batch completions at the end."

// contract is work_update's parameter contract (docs/ARCHITECTURE.md §6):
// the published schema and the decoding come from this type and entry. Its
// items are read by parseTodos, which gives the contract's messages and
// folds status synonyms ("done") onto the published enum.
type contract struct {
	Todos tools.Raw `json:"todos" jsonschema:"The complete list of To-do items. This replaces the existing list."`
}

// entry is one published To-do item.
type entry struct {
	Content string `json:"content" jsonschema:"What the item is about, in a few words."`
	Status  string `json:"status"`
}

// params is shared, read-only, by work_update and its full-replace aliases
// in every turn's registry; the schema is built once per process.
var params = tools.NewParams[contract](Name, tools.ParamOptions[contract]{
	Shape: func(s *jsonschema.Schema, _ []string) {
		items, err := jsonschema.For[entry](nil)
		if err != nil {
			panic(err) // two strings; every tool's schema is derived in a test
		}
		items.AdditionalProperties = nil
		items.Properties["status"].Enum = statusEnum()
		t := s.Properties["todos"]
		t.Type, t.Items = "array", items
	}})

// statusNames are the published statuses, in published order.
var statusNames = []string{string(Pending), string(InProgress), string(Completed), string(Cancelled)}

func statusEnum() []any {
	out := make([]any, len(statusNames))
	for i, n := range statusNames {
		out[i] = n
	}
	return out
}

// Update is the work_update tool, or one of its full-replace aliases
// (todo_write, checklist_write) when invokedAs is set.
type Update struct {
	tools.Spec
	ledger    *Ledger
	invokedAs string
}

// Name is the tool's name, which its replay aliases stand for.
const Name = "work_update"

// New returns work_update writing to ledger: eager, writes_files, approval
// Auto, available in every mode including Plan.
func New(ledger *Ledger) *Update {
	return &Update{ledger: ledger, Spec: tools.Spec{
		ToolName:   Name,
		Desc:       description,
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapWritesFiles},
		Approve:    tools.Auto,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3): the
// contract's exact messages for a malformed list, statuses rewritten to
// their canonical spelling (so "done" is "completed" in the canonical
// input). An alias drops any `action` it was given.
func (t *Update) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := params.Decode(raw)
	if err != nil {
		return nil, err
	}
	entries, err := parseTodos(d)
	if err != nil {
		return nil, err
	}
	todos := make([]map[string]string, len(entries))
	for i, e := range entries {
		todos[i] = map[string]string{"content": e.Content, "status": string(e.Status)}
	}
	canonical, err := json.Marshal(map[string]any{"todos": todos})
	if err != nil {
		return nil, tools.ExecutionFailed("work_update: %v", err)
	}
	return tools.NewCall(canonical, t.StaticPolicy(), func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		snap := t.ledger.Replace(entries)
		header := fmt.Sprintf("Todo list updated (%d items, %d%% settled)", len(snap.Items), snap.CompletionPct)
		return tools.Sized(result(header, snap, t.invokedAs), nil, tc, "the full To-do is in <codewhale:work_state>; shorten item texts")
	}), nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Update) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

// parseTodos reads the `todos` array. An item without a status is pending;
// an unknown status is an error, never coerced.
func parseTodos(d *tools.Decoded[contract]) ([]Entry, error) {
	var raw []json.RawMessage
	if v := d.Raw("todos"); v == nil || tools.JSONType(v) != "array" || json.Unmarshal(v, &raw) != nil {
		return nil, tools.InvalidInput("Missing or invalid 'todos' array")
	}
	entries := make([]Entry, 0, len(raw))
	for _, r := range raw {
		item, err := tools.ParseArgs(r)
		if err != nil {
			return nil, tools.InvalidInput("Todo item missing 'content'")
		}
		e, err := parseEntry(item)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// parseEntry reads {content, status?}.
func parseEntry(item tools.Args) (Entry, error) {
	content, ok, err := item.String("content")
	if err != nil || !ok || strings.TrimSpace(content) == "" {
		return Entry{}, tools.InvalidInput("Todo item missing 'content'")
	}
	st, err := optionalStatus(item)
	return Entry{Content: content, Status: st}, err
}

// optionalStatus reads `status`, defaulting to pending when absent.
func optionalStatus(a tools.Args) (Status, error) {
	v, ok := a["status"]
	if !ok {
		return Pending, nil
	}
	var raw string
	if json.Unmarshal(v, &raw) != nil {
		raw = string(v)
	}
	st, ok := ParseStatus(raw)
	if !ok {
		return "", tools.InvalidInput("%s", unknownStatus(raw))
	}
	return st, nil
}

// result is the content `<header>\n<pretty snapshot>` plus the Work-surface
// metadata every ledger write carries.
func result(header string, snap Snapshot, invokedAs string) tools.Result {
	body, _ := json.MarshalIndent(snap, "", "  ")
	res := tools.OK(header + "\n" + string(body))
	res.Metadata = metadata(snap)
	if invokedAs != "" {
		res.Metadata["invoked_as"] = invokedAs
	}
	return res
}

func metadata(snap Snapshot) map[string]any {
	items := make([]map[string]any, len(snap.Items))
	for i, it := range snap.Items {
		items[i] = map[string]any{"id": it.ID, "content": it.Content, "status": string(it.Status)}
	}
	var active any
	if snap.InProgressID != 0 {
		active = snap.InProgressID
	}
	return map[string]any{
		"canonical_tool": Name,
		"work_surface": map[string]any{"canonical": "work", "model_visible": true,
			"durable_owner": "fleet_workflow_ledger", "progress_key": "task_updates.checklist"},
		"task_updates": map[string]any{"checklist": map[string]any{
			"items": items, "completion_pct": snap.CompletionPct, "in_progress_id": active, "updated_at": nil}},
	}
}
