package tasks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// standIns writes harmless scripts named names into a fresh directory: each
// only appends "<name> <args>" to the returned log. Hostile gate commands
// call them by absolute path, so nothing destructive runs even if a refusal
// regresses.
func standIns(t *testing.T, names ...string) (bin, log string) {
	t.Helper()
	bin, log = t.TempDir(), filepath.Join(t.TempDir(), "ran.log")
	for _, n := range names {
		script := "#!/bin/sh\necho \"" + n + " $*\" >> " + log + "\n"
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, log
}

func gateInput(command string) string {
	in, _ := json.Marshal(map[string]string{"action": "gate_run", "gate": "custom", "command": command})
	return string(in)
}

// CONTRACT.md §6.7: Plan registers list and read only — the read-only instance refuses create, cancel and gate_run
// with the family's invalid-action text before anything happens (no task is created or cancelled, no gate command
// runs), registers no task_create alias, declares itself read_only, and still lists and reads.
func TestContract67PlanRunsListAndReadOnly(t *testing.T) {
	t.Parallel()
	bin, log := standIns(t, "echo")
	store, _ := openStore(t, t.TempDir())
	rec := mustCreate(t, store, "queued before Plan")
	o := Options{Store: store, ReadOnly: true}
	reg := taskRegistry(o)
	for _, in := range []string{
		`{"action":"create","prompt":"x"}`,
		`{"action":"cancel","task_id":"` + rec.ID + `"}`,
		gateInput(bin + "/echo ran"),
	} {
		_, err := run(t, reg, t.TempDir(), "tasks", in)
		te := tools.AsError(err)
		if err == nil || te.Kind != tools.KindInvalidInput || !strings.HasSuffix(te.Msg, "(one of: list, read)") {
			t.Errorf("Plan %s: err = %v, want the invalid-action refusal", in, err)
		}
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("a gate command ran in Plan")
	}
	if got, _ := store.Get(rec.ID); got.Status != Queued || len(store.List(0)) != 1 {
		t.Errorf("Plan changed the store: %s, %d tasks", got.Status, len(store.List(0)))
	}
	if _, ok := reg.Get("task_create"); ok {
		t.Error("Plan registers task_create")
	}
	if caps := New(o).Capabilities(); !slices.Equal(caps, []tools.Capability{tools.CapReadOnly}) {
		t.Errorf("Plan capabilities %v, want read_only", caps)
	}
	if got := decode(t, mustExec(t, reg, "tasks", `{"action":"list"}`).Content)["summary"]; got != "1 durable task(s)" {
		t.Errorf("Plan list: %v", got)
	}
	if got := decode(t, mustExec(t, reg, "tasks", `{"action":"read","task_id":"`+rec.ID+`"}`).Content)["summary"]; got != "task_read: "+rec.ID+" (Queued)" {
		t.Errorf("Plan read: %v", got)
	}
}

// CONTRACT.md §6.7: gate_run needs approval, its command judged by Bash's classifier: an ordinary command keeps
// the Required approval and runs; a destructive-but-legitimate one needs an explicit approval with the reason; a
// hard-blocked one is not asked about but refused with a failed BLOCKED result, and nothing runs. Every program is
// a stand-in that only logs.
func TestContract67GateRunApprovalFollowsTheClassifier(t *testing.T) {
	t.Parallel()
	bin, log := standIns(t, "echo", "git", "rm")
	ws := t.TempDir()
	store, _ := openStore(t, t.TempDir())
	o := Options{Store: store, Workspace: ws}
	tool, reg := New(o), taskRegistry(o)

	ordinary, explicit, blocked := gateInput(bin+"/echo ok"), gateInput(bin+"/git clean -fdx"), gateInput(bin+"/rm -rf /")
	if p := policy(t, tool, ordinary); p.Approval != tools.Required {
		t.Errorf("ordinary gate: approval %v, want Required", p.Approval)
	}
	if p := policy(t, tool, explicit); p.Approval != tools.Explicit || !strings.Contains(p.Reason, "untracked") {
		t.Errorf("git clean gate: approval %v reason %q, want Explicit with the classifier's reason", p.Approval, p.Reason)
	}
	if p := policy(t, tool, blocked); p.Approval != tools.Auto {
		t.Errorf("blocked gate: approval %v, want Auto (refused, never asked)", p.Approval)
	}

	res, err := run(t, reg, ws, "tasks", blocked)
	if err != nil || res.Success || !strings.HasPrefix(res.Content, "BLOCKED: gate command classified dangerous: ") ||
		res.Metadata["blocked"] != true {
		t.Fatalf("blocked gate: %+v %v", res, err)
	}
	if data, err := os.ReadFile(log); err == nil {
		t.Fatalf("a blocked gate ran: %s", data)
	}
	res, err = run(t, reg, ws, "tasks", ordinary)
	if err != nil || !res.Success {
		t.Fatalf("ordinary gate: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(log); string(data) != "echo ok\n" {
		t.Fatalf("stand-in log %q: the ordinary gate should have run once", data)
	}
}

// CONTRACT.md §6.7: with no task store attached every store action answers exactly `TaskManager is not attached`
// (not available), and read or cancel without a task_id and no active durable task answers exactly
// `task_id is required when no durable task is active` (invalid input) first.
func TestContract67ExactErrorsForEveryStoreAction(t *testing.T) {
	t.Parallel()
	reg := taskRegistry(Options{})
	for in, want := range map[string]struct {
		kind tools.ErrorKind
		msg  string
	}{
		`{"action":"create","prompt":"x"}`:          {tools.KindNotAvailable, "TaskManager is not attached"},
		`{"action":"list"}`:                         {tools.KindNotAvailable, "TaskManager is not attached"},
		`{"action":"read","task_id":"task_0"}`:      {tools.KindNotAvailable, "TaskManager is not attached"},
		`{"action":"cancel","task_id":"task_0"}`:    {tools.KindNotAvailable, "TaskManager is not attached"},
		`{"action":"read"}`:                         {tools.KindInvalidInput, "task_id is required when no durable task is active"},
		`{"action":"cancel","task_id":""}`:          {tools.KindInvalidInput, "task_id is required when no durable task is active"},
		`{"action":"read","task_id":"","limit":20}`: {tools.KindInvalidInput, "task_id is required when no durable task is active"},
	} {
		_, err := run(t, reg, t.TempDir(), "tasks", in)
		if te := tools.AsError(err); err == nil || te.Kind != want.kind || te.Msg != want.msg {
			t.Errorf("%s: err = %v, want %q", in, err, want.msg)
		}
	}
}

// CONTRACT.md §6.7: storage is one JSON file per task, <dir>/tasks/<id>.json, plus <dir>/queue.json, the queued
// ids in run order; every change is on disk when the call returns and no staged file is left behind.
func TestContract67OneJSONFilePerTaskPlusTheQueueFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store, _ := openStore(t, dir)
	reg := taskRegistry(Options{Store: store})
	var ids []string
	for _, p := range []string{"first", "second", "third"} {
		out := decode(t, mustExec(t, reg, "tasks", `{"action":"create","prompt":"`+p+`"}`).Content)
		ids = append(ids, out["task"].(map[string]any)["id"].(string))
	}
	mustExec(t, reg, "tasks", `{"action":"cancel","task_id":"`+ids[1]+`"}`)

	entries, err := os.ReadDir(filepath.Join(dir, "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{ids[0] + ".json", ids[1] + ".json", ids[2] + ".json"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tasks/ holds %v, want exactly %v", names, want)
	}
	for i, id := range ids {
		var rec TaskRecord
		data, err := os.ReadFile(filepath.Join(dir, "tasks", id+".json"))
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		wantStatus := Queued
		if i == 1 {
			wantStatus = Canceled
		}
		if err != nil || rec.ID != id || rec.Status != wantStatus {
			t.Errorf("%s.json: %v, id %q status %q, want %s", id, err, rec.ID, rec.Status, wantStatus)
		}
	}
	if q := readQueue(t, dir); !slices.Equal(q, []string{ids[0], ids[2]}) {
		t.Errorf("queue.json = %v, want [%s %s]", q, ids[0], ids[2])
	}
	if pending, _ := filepath.Glob(filepath.Join(dir, "*.pending")); len(pending) > 0 {
		t.Errorf("staged files left behind: %v", pending)
	}
}
