package work_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/app"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/work"
)

// CONTRACT.md §6.8: the published schema requires `todos`, an array of `{content, status}` objects whose status is
// one of pending, in_progress, completed, cancelled.
func TestContract68PublishedSchema(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal(work.New(work.NewLedger()).InputSchema())
	var schema map[string]any
	if err := json.Unmarshal(got, &schema); err != nil {
		t.Fatal(err)
	}
	todos := schema["properties"].(map[string]any)["todos"].(map[string]any)
	items := todos["items"].(map[string]any)
	props := items["properties"].(map[string]any)
	status := props["status"].(map[string]any)
	if !reflect.DeepEqual(schema["required"], []any{"todos"}) || todos["type"] != "array" || items["type"] != "object" ||
		len(props) != 2 || props["content"].(map[string]any)["type"] != "string" ||
		!reflect.DeepEqual(items["required"], []any{"content", "status"}) ||
		!reflect.DeepEqual(status["enum"], []any{"pending", "in_progress", "completed", "cancelled"}) {
		t.Fatalf("schema %s", got)
	}
}

// CONTRACT.md §6.8: an item without status is pending, and the listed spellings (any case) fold onto the four
// statuses — in the ledger and in the canonical input the call records; any other spelling is refused with the
// exact unknown-status text and leaves the list as it was.
func TestContract68StatusSpellingsFold(t *testing.T) {
	t.Parallel()
	l := work.NewLedger()
	reg := tools.NewRegistry()
	reg.Register(work.New(l))
	in := `{"todos":[{"content":"a"},{"content":"b","status":"DONE"},{"content":"c","status":"complete"},` +
		`{"content":"d","status":"Canceled"},{"content":"e","status":"inprogress"},{"content":"f","status":"in-progress"},` +
		`{"content":"g","status":"In Progress"}]}`
	call, err := reg.Prepare("work_update", json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"completed"},` +
		`{"content":"c","status":"completed"},{"content":"d","status":"cancelled"},{"content":"e","status":"in_progress"},` +
		`{"content":"f","status":"in_progress"},{"content":"g","status":"in_progress"}]}`
	if string(call.Input) != want {
		t.Errorf("canonical input %s\nwant %s", call.Input, want)
	}
	if _, err := reg.Execute(context.Background(), &tools.Context{}, "work_update", json.RawMessage(in)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range l.Snapshot().Items {
		got = append(got, string(it.Status))
	}
	// A later in_progress demotes the earlier ones: e and f end pending.
	if strings.Join(got, ",") != "pending,completed,completed,cancelled,pending,pending,in_progress" {
		t.Errorf("statuses %v", got)
	}
	for _, bad := range []string{"todo", "finished", "in_progres", ""} {
		_, err := reg.Execute(context.Background(), &tools.Context{}, "work_update",
			json.RawMessage(`{"todos":[{"content":"x","status":"`+bad+`"}]}`))
		want := "unknown todo status '" + bad + "'; expected pending, in_progress, completed, or cancelled"
		if te := tools.AsError(err); err == nil || te.Msg != want {
			t.Errorf("status %q: err = %v, want %q", bad, err, want)
		}
	}
	if n := len(l.Snapshot().Items); n != 7 {
		t.Errorf("a refused call changed the list: %d items", n)
	}
}

// agentRig is a real session (internal/app) whose model is the fake server.
func agentRig(t *testing.T, srv *fakemodel.Server) *app.App {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "CODEWHALE_HOME": filepath.Join(home, ".codewhale"), "CODEWHALE_BASE_URL": srv.URL,
		"CODEWHALE_TASKS_DIR": filepath.Join(home, "tasks")}
	cfg, err := config.Load(config.Flags{Workspace: ws}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	mode := posture.Act
	a, err := app.New(cfg, app.Options{Version: "test", Mode: &mode, AutoApprove: true, NoMCP: true, NoJournal: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	a.Sandbox = nil // nothing here runs a command
	return a
}

const childMark = "CHILD-TASK: track your own work"

func userTexts(r *fakemodel.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			out = append(out, s)
		}
	}
	return out
}

func isChild(r *fakemodel.Request) bool {
	for _, s := range userTexts(r) {
		if strings.Contains(s, childMark) {
			return true
		}
	}
	return false
}

func lastMessage(r *fakemodel.Request) string {
	ms := r.Messages()
	if len(ms) == 0 || ms[len(ms)-1]["role"] != "user" {
		return ""
	}
	s, _ := ms[len(ms)-1]["content"].(string)
	return s
}

// CONTRACT.md §6.8: one list per agent — a sub-agent's work_update writes its own list, never its parent's, and the
// child never reads the parent's.
// CONTRACT.md §7: the block rides on every step of the parent and of every sub-agent, each with its own list, and a
// forked child gets the parent's body byte for byte inside <codewhale:fork_state> under `### Work` at the head of
// its first prompt. Real session wiring (internal/app) against the fake model.
func TestContract68And7EveryAgentHasItsOwnListAndBlock(t *testing.T) {
	t.Parallel()
	parentTodos := `{"todos":[{"content":"Parent step A","status":"in_progress"},{"content":"Parent step B","status":"pending"}]}`
	childTodos := `{"todos":[{"content":"Child item","status":"in_progress"}]}`
	srv := fakemodel.New(t)
	var mu sync.Mutex
	var parentReqs, childReqs []*fakemodel.Request
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		mu.Lock()
		defer mu.Unlock()
		if isChild(r) {
			childReqs = append(childReqs, r)
			if !r.HasToolResult("Todo list updated") {
				return fakemodel.Tools(fakemodel.Call{ID: "cw", Name: "work_update", Args: childTodos})
			}
			return fakemodel.Text("child done")
		}
		parentReqs = append(parentReqs, r)
		switch {
		case r.HasToolResult("agent_id"):
			return fakemodel.Text("delegated")
		case r.HasToolResult("Todo list updated"):
			return fakemodel.Tools(fakemodel.Call{ID: "pa", Name: "agent",
				Args: `{"prompt":"` + childMark + `","type":"worker","fork_context":true}`})
		}
		return fakemodel.Tools(fakemodel.Call{ID: "pw", Name: "work_update", Args: parentTodos})
	})
	a := agentRig(t, srv)
	eng := engine.New(a.EngineOptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Run(ctx)
	if reply, err := eng.RunTurn(ctx, engine.SendMessage{Content: "plan and delegate"}, nil); err != nil || reply.Done.Status != engine.TurnCompleted {
		t.Fatalf("parent turn: %v %+v", err, reply.Done)
	}
	if _, settled := a.Agents.Wait(ctx, nil, "all", 20*time.Second); !settled {
		t.Fatal("the child did not finish")
	}

	parentBody := "To-do (0% settled)\n- [~] #1 Parent step A\n- [ ] #2 Parent step B"
	childBody := "To-do (0% settled)\n- [~] #1 Child item"
	block := func(body string) string { return "<codewhale:work_state>\n" + body + "\n</codewhale:work_state>" }
	if got := work.RenderWorkState(a.Services.Ledger.Snapshot()); got != parentBody {
		t.Fatalf("the parent's list is %q, want its own two items (the child must not write it)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	// The parent may take one more step when the child's completion notice
	// arrives before its turn ends; every step after the first counts.
	if len(parentReqs) < 3 || len(childReqs) != 2 {
		t.Fatalf("%d parent and %d child requests, want at least 3 and 2", len(parentReqs), len(childReqs))
	}
	if lastMessage(parentReqs[0]) == block(parentBody) {
		t.Error("the parent's first step carried a block before any To-do existed")
	}
	for i, r := range parentReqs[1:] {
		if got := lastMessage(r); got != block(parentBody) {
			t.Errorf("parent step %d ends with %q, want its own block", i+2, got)
		}
	}

	fork := "<codewhale:fork_state>\n### Work\n\n" + parentBody + "\n</codewhale:fork_state>\n\n" + childMark
	first := userTexts(childReqs[0])
	if !strings.Contains(strings.Join(first, "\n"), fork) {
		t.Errorf("the child's first prompt lacks the fork state %q:\n%q", fork, first)
	}
	for _, s := range first {
		if strings.Contains(s, "<codewhale:work_state>") {
			t.Errorf("the child's first step carries a work_state block (its own list is empty): %q", s)
		}
	}
	if got := lastMessage(childReqs[1]); got != block(childBody) {
		t.Errorf("the child's second step ends with %q, want its own block %q", got, block(childBody))
	}
	for _, s := range userTexts(childReqs[1]) {
		if strings.Contains(s, "<codewhale:work_state>") && strings.Contains(s, "Parent step") {
			t.Errorf("the child read its parent's list: %q", s)
		}
	}
}
