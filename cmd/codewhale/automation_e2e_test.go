package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The model finds automation through tool_search and creates a one-off;
// a new process lists it; when it is due, two `automation run-due`
// processes racing enqueue and run exactly one task.
// README.md "Automations": codewhale automation list and run-due manage automations from the command line, and racing run-due processes run one task.
func TestAutomationEndToEnd(t *testing.T) {
	t.Parallel()
	due := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339)
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"schedule automation"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "c", Name: "automation", Args: `{"action":"create","name":"release digest",` +
			`"prompt":"summarise yesterday's commits","schedule":"FREQ=ONCE;AT=` + due + `","timezone":"UTC"}`}),
		fakemodel.Text("Scheduled."))
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("Digest: nothing happened.") })
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "every morning, summarise commits")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) < 3 || !reqs[1].HasToolResult(`"tool_name":"automation"`) || !reqs[2].HasToolResult(`"created":{`) {
		t.Fatalf("create did not happen: %s", reqs[len(reqs)-1].Raw)
	}
	list, _, code := c.run("automation", "list")
	if code != 0 || !strings.Contains(list, "release digest") || !strings.Contains(list, "active") {
		t.Fatalf("list after restart: %d %s", code, list)
	}
	if out, _, _ := c.run("automation", "run-due"); !strings.Contains(out, "Nothing is due.") {
		t.Fatalf("ran before it was due: %s", out)
	}
	deadline, _ := time.Parse(time.RFC3339, due)
	time.Sleep(time.Until(deadline) + 200*time.Millisecond) // the schedule's own clock is what is under test
	var wg sync.WaitGroup
	outs := make([]string, 2)
	codes := make([]int, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _, codes[i] = c.run("automation", "run-due")
		}()
	}
	wg.Wait()
	joined := strings.Join(outs, "\n---\n")
	idle := strings.Count(joined, "Nothing is due.") + strings.Count(joined, "another codewhale process runs this task queue")
	if codes[0] != 0 || codes[1] != 0 || strings.Count(joined, "completed") != 1 || idle != 1 {
		t.Fatalf("racing run-due:\n%s", joined)
	}
	tasksDir := filepath.Join(c.home, ".codewhale", "tasks", "tasks")
	entries, _ := os.ReadDir(tasksDir)
	if len(entries) != 1 {
		t.Fatalf("%d task records, want exactly 1", len(entries))
	}
	data, _ := os.ReadFile(filepath.Join(tasksDir, entries[0].Name()))
	if !strings.Contains(string(data), `"status": "completed"`) && !strings.Contains(string(data), `"status":"completed"`) {
		t.Errorf("task did not complete: %s", data)
	}
	list, _, _ = c.run("automation", "list")
	if !strings.Contains(list, "done") {
		t.Errorf("the one-off is not done: %s", list)
	}
}

func TestAutomationHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	out, _, code := c.run("automation", "--help")
	for _, sub := range []string{"list", "show", "pause", "resume", "delete", "run-due"} {
		if !strings.Contains(out, sub) {
			t.Errorf("help lacks %s", sub)
		}
	}
	if code != 0 {
		t.Errorf("code %d", code)
	}
	if _, errOut, code := c.run("automation", "show", "auto_deadbeef"); code == 0 || !strings.Contains(errOut, "automation not found") {
		t.Errorf("show unknown: %d %s", code, errOut)
	}
}
