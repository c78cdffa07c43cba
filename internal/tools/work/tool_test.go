package work

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

func registry(l *Ledger) *tools.Registry {
	reg := tools.NewRegistry()
	reg.Register(New(l))
	for _, a := range Aliases(l) {
		reg.Register(a)
	}
	return reg
}

func call(t *testing.T, reg *tools.Registry, name, in string) (tools.Result, error) {
	t.Helper()
	return reg.Execute(context.Background(), &tools.Context{}, name, json.RawMessage(in))
}

// CONTRACT.md §6.8: each call replaces the list numbered from 1 and answers with the exact 'Todo list updated' text
// and the pretty JSON snapshot.
func TestWorkUpdateContractExample(t *testing.T) {
	t.Parallel()
	reg := registry(NewLedger())
	res, err := call(t, reg, "work_update", `{"todos":[{"content":"Read seam","status":"completed"},{"content":"Write renderer","status":"in_progress"},{"content":"Run tests","status":"pending"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `Todo list updated (3 items, 33% settled)
{
  "items": [
    {
      "id": 1,
      "content": "Read seam",
      "status": "completed"
    },
    {
      "id": 2,
      "content": "Write renderer",
      "status": "in_progress"
    },
    {
      "id": 3,
      "content": "Run tests",
      "status": "pending"
    }
  ],
  "completion_pct": 33,
  "in_progress_id": 2
}`
	if res.Content != want || !res.Success {
		t.Fatalf("content =\n%s\nwant\n%s", res.Content, want)
	}
	meta, _ := json.Marshal(res.Metadata)
	wantMeta := `{"canonical_tool":"work_update","task_updates":{"checklist":{"completion_pct":33,"in_progress_id":2,"items":[{"content":"Read seam","id":1,"status":"completed"},{"content":"Write renderer","id":2,"status":"in_progress"},{"content":"Run tests","id":3,"status":"pending"}],"updated_at":null}},"work_surface":{"canonical":"work","durable_owner":"fleet_workflow_ledger","model_visible":true,"progress_key":"task_updates.checklist"}}`
	if string(meta) != wantMeta {
		t.Fatalf("metadata = %s\nwant %s", meta, wantMeta)
	}
}

// CONTRACT.md §6.8: the exact missing-todos, missing-content and unknown-status texts.
func TestWorkUpdateExactErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{}`, "Missing or invalid 'todos' array"},
		{`{"todos":"a"}`, "Missing or invalid 'todos' array"},
		{`{"todos":[{"status":"pending"}]}`, "Todo item missing 'content'"},
		{`{"todos":[{"content":"  ","status":"pending"}]}`, "Todo item missing 'content'"},
		{`{"todos":["a"]}`, "Todo item missing 'content'"},
		{`{"todos":[{"content":"a","status":"doing"}]}`, "unknown todo status 'doing'; expected pending, in_progress, completed, or cancelled"},
		{`{"todos":[{"content":"a","status":3}]}`, "unknown todo status '3'; expected pending, in_progress, completed, or cancelled"},
	}
	l := NewLedger()
	l.Replace(entries("keep", "pending"))
	reg := registry(l)
	for _, c := range cases {
		_, err := call(t, reg, "work_update", c.in)
		te := tools.AsError(err)
		if err == nil || te.Kind != tools.KindInvalidInput || te.Msg != c.want {
			t.Errorf("%s: err = %v, want InvalidInput %q", c.in, err, c.want)
		}
	}
	if s := l.Snapshot(); len(s.Items) != 1 {
		t.Fatalf("a refused call changed the list: %+v", s)
	}
}

func TestWorkUpdateAcceptsSynonymsAndMissingStatus(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	reg := registry(l)
	if _, err := call(t, reg, "work_update", `{"todos":[{"content":"a","status":"Done"},{"content":"b"},{"content":"c","status":"in progress"}]}`); err != nil {
		t.Fatal(err)
	}
	got := l.Snapshot()
	if got.Items[0].Status != Completed || got.Items[1].Status != Pending || got.Items[2].Status != InProgress {
		t.Fatalf("statuses = %+v", got.Items)
	}
}

// CONTRACT.md §6.8: work_update is eager, approval Auto, writes_files.
func TestWorkUpdateIsEagerAutoAndWritesFiles(t *testing.T) {
	t.Parallel()
	tool := New(NewLedger())
	if tool.Name() != "work_update" || !tool.ModelVisible() || tool.DeferLoading() ||
		tool.ApprovalFor(nil) != tools.Auto || tool.ReadOnlyFor(nil) {
		t.Fatalf("work_update policy is wrong: %+v", tool.Spec)
	}
	if caps := tool.Capabilities(); len(caps) != 1 || caps[0] != tools.CapWritesFiles {
		t.Fatalf("capabilities = %v", caps)
	}
}

// CONTRACT.md §6.8: the granular aliases answer with the exact Added/Updated/Todo list texts on the same ledger.
func TestAliasesAreHiddenAndShareTheLedger(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	reg := registry(l)
	for _, name := range []string{"todo_write", "checklist_write", "todo_add", "checklist_add", "todo_update", "checklist_update", "todo_list", "checklist_list"} {
		tool, ok := reg.Get(name)
		if !ok || tool.ModelVisible() {
			t.Errorf("%s: registered=%v visible=%v; want a hidden alias", name, ok, ok && tool.ModelVisible())
		}
	}
	for _, api := range reg.APITools() {
		if api.Name != "work_update" {
			t.Errorf("APITools advertises %s", api.Name)
		}
	}

	steps := []struct{ name, in, want string }{
		{"todo_write", `{"action":"list","todos":[{"content":"a","status":"pending"}]}`, "Todo list updated (1 items, 0% settled)"},
		{"checklist_add", `{"content":"b","status":"in_progress","action":"dance"}`, "Added todo #2 (in_progress)"},
		{"todo_update", `{"id":1,"status":"done"}`, "Updated todo #1 to completed"},
		{"checklist_list", `{"action":"write"}`, "Todo list (2 items, 50% settled)"},
	}
	for _, s := range steps {
		res, err := call(t, reg, s.name, s.in)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !strings.HasPrefix(res.Content, s.want+"\n{") || res.Metadata["invoked_as"] != s.name {
			t.Fatalf("%s: content %q metadata %v", s.name, res.Content, res.Metadata["invoked_as"])
		}
	}
	res, err := call(t, reg, "work_update", `{"todos":[]}`)
	if err != nil || res.Content != "Todo list updated (0 items, 0% settled)\n{\n  \"completion_pct\": 0\n}" {
		t.Fatalf("work_update after aliases: %q %v", res.Content, err)
	}
}

// CONTRACT.md §6.8: an unknown id answers the exact 'Todo id <id> not found'.
func TestTodoUpdateUnknownIDIsAFailedResult(t *testing.T) {
	t.Parallel()
	reg := registry(NewLedger())
	res, err := call(t, reg, "todo_update", `{"id":7,"status":"completed"}`)
	if err != nil || res.Success || res.Content != "Todo id 7 not found" {
		t.Fatalf("got %+v, %v", res, err)
	}
	_, err = call(t, reg, "checklist_update", `{"id":1,"status":"doing"}`)
	if te := tools.AsError(err); err == nil || !strings.HasPrefix(te.Msg, "unknown todo status 'doing'") {
		t.Fatalf("unknown status err = %v", err)
	}
}
