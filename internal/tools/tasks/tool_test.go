package tasks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

// testJobs runs the gates of every test registry (the job manager is
// process-wide in a session, too).
var testJobs = sync.OnceValue(func() *jobs.Manager {
	m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 200 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	return m
})

func taskRegistry(o Options) *tools.Registry {
	if o.Jobs == nil {
		o.Jobs = testJobs()
	}
	reg := tools.NewRegistry()
	reg.Register(New(o))
	for _, a := range Aliases(o) {
		reg.Register(a)
	}
	return reg
}

func run(t *testing.T, reg *tools.Registry, ws, name, in string) (tools.Result, error) {
	t.Helper()
	tc := &tools.Context{Workspace: ws}
	return reg.Execute(context.Background(), tc, name, json.RawMessage(in))
}

func decode(t *testing.T, content string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(content), &m); err != nil {
		t.Fatalf("content is not JSON: %v\n%s", err, content)
	}
	return m
}

// CONTRACT.md §6.7: the read-only (Plan) instance offers list and read only.
func TestSchemaAdvertisesOnlyRunnableActions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		readOnly bool
		want     []any
	}{
		{false, []any{"create", "list", "read", "cancel", "gate_run"}},
		{true, []any{"list", "read"}},
	} {
		s := New(Options{ReadOnly: c.readOnly}).InputSchema()
		got := s["properties"].(map[string]any)["action"].(map[string]any)["enum"]
		if !reflect.DeepEqual(got, c.want) || s["additionalProperties"] != false {
			t.Errorf("readOnly=%v: enum %v additionalProperties %v", c.readOnly, got, s["additionalProperties"])
		}
		if _, ok := s["properties"].(map[string]any)["command"]; ok == c.readOnly {
			t.Errorf("readOnly=%v: command property present=%v", c.readOnly, ok)
		}
	}
}

// CONTRACT.md §6.7: the exact TaskManager-not-attached and task_id-required texts.
func TestExactErrors(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	full := taskRegistry(Options{Store: store})
	plan := taskRegistry(Options{Store: store, ReadOnly: true})
	detached := taskRegistry(Options{})
	cases := []struct {
		reg      *tools.Registry
		name, in string
		kind     tools.ErrorKind
		msg      string
	}{
		{full, "tasks", `{"action":"frobnicate"}`, tools.KindInvalidInput, "tasks: invalid action `frobnicate` (one of: create, list, read, cancel, gate_run)"},
		{full, "tasks", `{}`, tools.KindInvalidInput, "tasks: missing `action` (one of: create, list, read, cancel, gate_run)"},
		{plan, "tasks", `{"action":"create","prompt":"x"}`, tools.KindInvalidInput, "tasks: invalid action `create` (one of: list, read)"},
		{full, "tasks", `{"action":"read"}`, tools.KindInvalidInput, "task_id is required when no durable task is active"},
		{full, "task_read", `{}`, tools.KindInvalidInput, "task_id is required when no durable task is active"},
		{full, "tasks", `{"action":"cancel"}`, tools.KindInvalidInput, "task_id is required when no durable task is active"},
		{detached, "tasks", `{"action":"list"}`, tools.KindNotAvailable, "TaskManager is not attached"},
		{full, "tasks", `{"action":"read","task_id":"task_nope"}`, tools.KindExecutionFailed, "Task not found: task_nope"},
		{full, "tasks", `{"action":"create","prompt":"   "}`, tools.KindInvalidInput, "Task prompt cannot be empty"},
	}
	for _, c := range cases {
		_, err := run(t, c.reg, t.TempDir(), c.name, c.in)
		te := tools.AsError(err)
		if err == nil || te.Kind != c.kind || te.Msg != c.msg {
			t.Errorf("%s %s: err = %v (kind %d), want %q", c.name, c.in, err, te.Kind, c.msg)
		}
	}
}

func TestCreateReadCancelThroughTheTool(t *testing.T) {
	t.Parallel()
	dir, ws := t.TempDir(), t.TempDir()
	store, _ := openStore(t, dir)
	reg := taskRegistry(Options{Store: store, DefaultModel: "deepseek-chat", SessionID: "sess-1"})
	res, err := run(t, reg, ws, "tasks", `{"action":"create","prompt":"Port the catalog","mode":"plan"}`)
	if err != nil || !res.Success {
		t.Fatalf("create: %+v %v", res, err)
	}
	out := decode(t, res.Content)
	task := out["task"].(map[string]any)
	id := task["id"].(string)
	if out["summary"] != "task_create: "+id+" (Queued)" || task["model"] != "deepseek-chat" || task["mode"] != "plan" ||
		task["workspace"] != ws || task["auto_approve"] != false || task["owner_session_id"] != "sess-1" {
		t.Fatalf("create content = %s", res.Content)
	}
	if w, _ := out["lifecycle_warning"].(string); !strings.Contains(w, "no task runner is attached") {
		t.Fatalf("a queued task with no runner must say so: %v", out["lifecycle_warning"])
	}

	// A restart: a new store and tool on the same data dir read it back.
	store2, _ := openStore(t, dir)
	reg2 := taskRegistry(Options{Store: store2})
	res, err = run(t, reg2, ws, "tasks", `{"action":"read","task_id":"`+id[:10]+`"}`)
	if err != nil || decode(t, res.Content)["summary"] != "task_read: "+id+" (Queued)" {
		t.Fatalf("read after restart: %s %v", res.Content, err)
	}
	res, err = run(t, reg2, ws, "tasks", `{"action":"cancel","task_id":"`+id+`"}`)
	out = decode(t, res.Content)
	if err != nil || out["summary"] != "task_cancel: "+id+" (Canceled)" || out["disposition"] != "forced" || out["lifecycle_warning"] != nil {
		t.Fatalf("cancel: %s %v", res.Content, err)
	}
}

func TestActiveTaskIsTheDefaultTarget(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	rec := mustCreate(t, store, "parent task")
	reg := taskRegistry(Options{Store: store, ActiveTaskID: rec.ID})
	res, err := run(t, reg, t.TempDir(), "tasks", `{"action":"read"}`)
	if err != nil || decode(t, res.Content)["summary"] != "task_read: "+rec.ID+" (Queued)" {
		t.Fatalf("read of the active task: %s %v", res.Content, err)
	}
	// The canonical input names the task acted on (permission rules, hooks
	// and the journal read it), through the alias too.
	for _, name := range []string{"tasks", "task_read"} {
		c, err := reg.Prepare(name, json.RawMessage(`{"action":"read","task_id":""}`))
		if err != nil || string(c.Input) != `{"action":"read","task_id":"`+rec.ID+`"}` {
			t.Errorf("%s: canonical input %v %v", name, c, err)
		}
	}
}

func TestAliasesMatchTheCanonicalActions(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	for _, p := range []string{"one", "two", "three"} {
		mustCreate(t, store, p)
	}
	rec := mustCreate(t, store, "four")
	reg := taskRegistry(Options{Store: store})
	pairs := []struct{ alias, aliasIn, canonIn string }{
		{"task_list", `{}`, `{"action":"list"}`},
		{"task_list", `{"limit":2,"action":"create"}`, `{"action":"list","limit":2}`},
		{"task_read", `{"task_id":"` + rec.ID + `"}`, `{"action":"read","task_id":"` + rec.ID + `"}`},
	}
	for _, p := range pairs {
		a, errA := run(t, reg, t.TempDir(), p.alias, p.aliasIn)
		c, errC := run(t, reg, t.TempDir(), "tasks", p.canonIn)
		if errA != nil || errC != nil || a.Content != c.Content || a.Success != c.Success {
			t.Errorf("%s %s ≢ tasks %s:\n%s\n%v\n---\n%s\n%v", p.alias, p.aliasIn, p.canonIn, a.Content, errA, c.Content, errC)
		}
		if a.Metadata["invoked_as"] != p.alias {
			t.Errorf("%s: invoked_as = %v", p.alias, a.Metadata["invoked_as"])
		}
	}
	if got := decode(t, mustExec(t, reg, "task_list", `{}`).Content)["summary"]; got != "4 durable task(s)" {
		t.Fatalf("list summary = %v", got)
	}
	res := mustExec(t, reg, "task_create", `{"prompt":"via alias","action":"list"}`)
	if s, _ := decode(t, res.Content)["summary"].(string); !strings.HasPrefix(s, "task_create: task_") {
		t.Fatalf("task_create ran %q", s)
	}
}

func mustExec(t *testing.T, reg *tools.Registry, name, in string) tools.Result {
	t.Helper()
	res, err := run(t, reg, t.TempDir(), name, in)
	if err != nil {
		t.Fatalf("%s %s: %v", name, in, err)
	}
	return res
}

func TestAliasRegistrationAndVisibility(t *testing.T) {
	t.Parallel()
	names := func(ts []tools.Tool) (out []string) {
		for _, x := range ts {
			if x.ModelVisible() {
				t.Errorf("%s is model-visible", x.Name())
			}
			out = append(out, x.Name())
		}
		return out
	}
	if got := names(Aliases(Options{})); !reflect.DeepEqual(got, []string{"task_create", "task_list", "task_read"}) {
		t.Errorf("act aliases = %v", got)
	}
	if got := names(Aliases(Options{ReadOnly: true})); !reflect.DeepEqual(got, []string{"task_list", "task_read"}) {
		t.Errorf("plan aliases = %v", got)
	}
	if props := Aliases(Options{})[1].InputSchema()["properties"].(map[string]any); props["action"] != nil {
		t.Error("a legacy alias schema has an action field")
	}
}

// policy prepares in for tool the registry's way and returns the call's
// policy; a refused input fails the test.
func policy(t *testing.T, tool tools.Tool, in string) tools.Policy {
	t.Helper()
	c, err := tools.PrepareCall(tool, json.RawMessage(in))
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), in, err)
	}
	return c.Policy
}

// The policy is decided from the decoded action, for the canonical tool
// and for each alias alike.
// CONTRACT.md §6.7: create, cancel and gate_run need approval; list and read are Auto.
func TestApprovalPerAction(t *testing.T) {
	t.Parallel()
	full, plan := New(Options{ActiveTaskID: "task_1"}), New(Options{ReadOnly: true, ActiveTaskID: "task_1"})
	aliases := Aliases(Options{ActiveTaskID: "task_1"})
	cases := []struct {
		tool     tools.Tool
		in       string
		approval tools.Approval
		readOnly bool
	}{
		{full, `{"action":"create","prompt":"x"}`, tools.Required, false},
		{full, `{"action":"cancel"}`, tools.Required, false},
		{full, `{"action":"gate_run","gate":"test","command":"go test ./..."}`, tools.Required, false},
		{full, `{"action":"list"}`, tools.Auto, true},
		{full, `{"action":"read"}`, tools.Auto, true},
		{plan, `{"action":"list"}`, tools.Auto, true},
		{plan, `{"action":"read","task_id":"task_2"}`, tools.Auto, true},
		{aliases[0], `{"prompt":"x","action":"list"}`, tools.Required, false},
		{aliases[1], `{"action":"create"}`, tools.Auto, true},
		{aliases[2], `{}`, tools.Auto, true},
	}
	for _, c := range cases {
		p := policy(t, c.tool, c.in)
		if p.Approval != c.approval || p.ReadOnly != c.readOnly || p.Parallel != c.readOnly || p.Detached {
			t.Errorf("%s %s: policy %+v", c.tool.Name(), c.in, p)
		}
	}
	for _, in := range []string{`{"action":"dance"}`, `not json`, `{}`} {
		if _, err := tools.PrepareCall(full, json.RawMessage(in)); err == nil {
			t.Errorf("%s was prepared", in)
		}
	}
}

func gateCall(t *testing.T, reg *tools.Registry, ws, in string) (tools.Result, map[string]any) {
	t.Helper()
	res, err := run(t, reg, ws, "tasks", in)
	if err != nil {
		t.Fatalf("gate_run %s: %v", in, err)
	}
	if strings.HasPrefix(res.Content, "BLOCKED") {
		return res, nil
	}
	return res, decode(t, res.Content)["gate"].(map[string]any)
}

func TestGateRunRecordsEvidence(t *testing.T) {
	t.Parallel()
	dir, ws := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	store, _ := openStore(t, dir)
	parent := mustCreate(t, store, "parent")
	reg := taskRegistry(Options{Store: store, ActiveTaskID: parent.ID})

	res, gate := gateCall(t, reg, ws, `{"action":"gate_run","gate":"test","command":"pwd; echo all good","cwd":"sub"}`)
	if !res.Success || gate["status"] != "passed" || gate["exit_code"] != 0.0 || gate["classification"] != "passed" ||
		!strings.HasPrefix(gate["id"].(string), "gate_") || len(gate["id"].(string)) != 13 || gate["cwd"] != filepath.Join(ws, "sub") {
		t.Fatalf("passing gate = %s", res.Content)
	}
	log, err := os.ReadFile(gate["log_path"].(string))
	if err != nil || !strings.Contains(string(log), "$ pwd; echo all good") || !strings.Contains(string(log), "all good") {
		t.Fatalf("gate log %v: %s", err, log)
	}
	if !strings.HasPrefix(gate["log_path"].(string), filepath.Join(dir, "artifacts", parent.ID)) {
		t.Fatalf("log outside the task's artifacts: %s", gate["log_path"])
	}

	res, gate = gateCall(t, reg, ws, `{"action":"gate_run","gate":"test","command":"echo '--- FAIL: TestX' >&2; exit 3"}`)
	if res.Success || gate["status"] != "failed" || gate["exit_code"] != 3.0 || gate["classification"] != "test_failure" ||
		!strings.Contains(gate["summary"].(string), "FAIL: TestX") {
		t.Fatalf("failing gate = %s", res.Content)
	}
	rec, _ := store.Get(parent.ID)
	if len(rec.Gates) != 2 || len(rec.Artifacts) != 2 || rec.Gates[1].Status != "failed" {
		t.Fatalf("gates were not attached to the active task: %+v", rec.Gates)
	}
}

func TestGateTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	reg := taskRegistry(Options{Store: store})
	// The background sleep keeps stdout open: unless the whole group dies,
	// the run would also wait out the 2 s pipe grace period.
	start := time.Now()
	res, gate := gateCall(t, reg, t.TempDir(), `{"action":"gate_run","gate":"custom","command":"sleep 30 & sleep 30","timeout_ms":1000}`)
	elapsed := time.Since(start)
	if res.Success || gate["status"] != "timeout" || gate["classification"] != "timeout" || gate["exit_code"] != nil {
		t.Fatalf("timed-out gate = %s", res.Content)
	}
	if elapsed > 2900*time.Millisecond {
		t.Fatalf("gate took %v: the process group was not killed", elapsed)
	}
}

func TestDangerousGateIsBlocked(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	reg := taskRegistry(Options{Store: store})
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran")
	res, _ := gateCall(t, reg, ws, `{"action":"gate_run","gate":"custom","command":"touch `+marker+` && sudo rm -rf /"}`)
	want := "BLOCKED: gate command classified dangerous: recursively deletes the filesystem root, a top-level system directory or the home directory (rm -r /)"
	if res.Success || res.Content != want || res.Metadata["blocked"] != true {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a blocked command ran")
	}
}

// gate_run commands go through the one command classifier: a hard block is
// refused without asking, a destructive-but-legitimate one needs an explicit
// approval with the reason.
func TestGateApprovalFollowsTheClassifier(t *testing.T) {
	t.Parallel()
	tool := New(Options{})
	for in, want := range map[string]tools.Approval{
		`{"action":"gate_run","gate":"test","command":"go test ./..."}`:    tools.Required,
		`{"action":"gate_run","gate":"custom","command":"git clean -fdx"}`: tools.Explicit,
		`{"action":"gate_run","gate":"custom","command":"curl x | sh"}`:    tools.Auto,
	} {
		if got := policy(t, tool, in).Approval; got != want {
			t.Errorf("approval of %s = %v, want %v", in, got, want)
		}
	}
	if r := policy(t, tool, `{"action":"gate_run","gate":"custom","command":"git clean -fdx"}`).Reason; !strings.Contains(r, "untracked") {
		t.Errorf("reason %q", r)
	}
}

func TestGateCwdMustStayInTheWorkspace(t *testing.T) {
	t.Parallel()
	reg := taskRegistry(Options{})
	_, err := run(t, reg, t.TempDir(), "tasks", `{"action":"gate_run","gate":"fmt","command":"true","cwd":"/"}`)
	if tools.AsError(err).Kind != tools.KindPathEscape {
		t.Fatalf("err = %v", err)
	}
}

func TestListShowsTheLoadReportWhenTheStoreWasRepaired(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	rec := mustCreate(t, s, "x")
	os.WriteFile(filepath.Join(dir, "tasks", rec.ID+".json"), []byte("{"), 0o600)
	s2, _ := openStore(t, dir)
	out := decode(t, mustExec(t, taskRegistry(Options{Store: s2}), "tasks", `{"action":"list"}`).Content)
	report, ok := out["load_report"].(map[string]any)
	if !ok || len(report["quarantined"].([]any)) != 1 || out["summary"] != "0 durable task(s)" {
		t.Fatalf("list = %v", out)
	}
}

func TestLifecycleWarningFollowsTheRunner(t *testing.T) {
	t.Parallel()
	store, _ := openStore(t, t.TempDir())
	block := make(chan struct{})
	defer close(block)
	started := make(chan struct{}, 1)
	// The runner holds the first task, so the second stays queued while a
	// runner is attached.
	store.AttachRunner(context.Background(), func(ctx context.Context, _ TaskRecord) (string, error) {
		started <- struct{}{}
		select {
		case <-block:
		case <-ctx.Done():
		}
		return "", nil
	}, 1)
	reg := taskRegistry(Options{Store: store})
	mustExec(t, reg, "tasks", `{"action":"create","prompt":"first"}`)
	<-started
	out := decode(t, mustExec(t, reg, "tasks", `{"action":"create","prompt":"second"}`).Content)
	if out["lifecycle_warning"] != nil {
		t.Fatalf("warning with a runner attached: %v", out["lifecycle_warning"])
	}
	store.Close()
	if store.HasRunner() {
		t.Fatal("HasRunner after Close")
	}
	id := out["task"].(map[string]any)["id"].(string)
	out = decode(t, mustExec(t, reg, "tasks", `{"action":"read","task_id":"`+id+`"}`).Content)
	if out["lifecycle_warning"] == nil {
		t.Fatal("no warning for a queued task once the runner is gone")
	}
}
