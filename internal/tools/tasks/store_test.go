package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func openStore(t *testing.T, dir string) (*Store, LoadReport) {
	t.Helper()
	s, report, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(s.Close)
	return s, report
}

func mustCreate(t *testing.T, s *Store, prompt string) TaskRecord {
	t.Helper()
	rec, err := s.Create(NewTask{Prompt: prompt, Mode: "agent", Workspace: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func readQueue(t *testing.T, dir string) []string {
	t.Helper()
	var q struct{ Queue []string }
	data, err := os.ReadFile(filepath.Join(dir, "queue.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	return q.Queue
}

func TestCreatedTaskSurvivesARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, report := openStore(t, dir)
	if !report.Clean() || report.Loaded != 0 {
		t.Fatalf("fresh store report = %+v", report)
	}
	created := mustCreate(t, s, "  port the registry  ")
	if !idPattern().MatchString(created.ID) || created.Status != Queued || created.Prompt != "port the registry" ||
		created.LifecycleSeq != 1 || created.Timeline[0].Kind != "queued" || created.SchemaVersion != SchemaVersion {
		t.Fatalf("created = %+v", created)
	}
	for _, p := range []string{"tasks/" + created.ID + ".json", "queue.json", "artifacts"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("layout: %v", err)
		}
	}

	again, report := openStore(t, dir) // a new process on the same data dir
	if !report.Clean() || report.Loaded != 1 {
		t.Fatalf("restart report = %+v", report)
	}
	got, err := again.Get(created.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(created)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Fatalf("record changed across restart:\n%s\n%s", a, b)
	}
	if q := readQueue(t, dir); len(q) != 1 || q[0] != created.ID {
		t.Fatalf("queue = %v", q)
	}
}

func TestEmptyPromptIsRefused(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, t.TempDir())
	if _, err := s.Create(NewTask{Prompt: " \n"}); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("err = %v", err)
	}
}

// CONTRACT.md §6.7: a task found running at load becomes failed and is never reattached.
func TestRunningTaskFailsOnRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, _ := openStore(t, dir)
	started := make(chan string)
	err := first.AttachRunner(context.Background(), func(ctx context.Context, rec TaskRecord) (string, error) {
		started <- rec.ID
		<-ctx.Done() // the "crashed" process never finishes it
		return "", ctx.Err()
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := mustCreate(t, first, "long job")
	<-started

	// While its runner lives, another process's Open leaves the task alone.
	if _, report := openStore(t, dir); len(report.Recovered) != 0 {
		t.Fatalf("a live runner's task was failed: %+v", report)
	}
	// The process dies: the kernel drops its runner lock.
	first.runLock.Unlock()

	second, report := openStore(t, dir)
	if len(report.Recovered) != 1 || report.Recovered[0] != rec.ID {
		t.Fatalf("report = %+v", report)
	}
	got, _ := second.Get(rec.ID)
	last := got.Timeline[len(got.Timeline)-1]
	if got.Status != Failed || got.Error != RestartError || last.Kind != "recovered" || last.Summary != RestartError ||
		got.EndedAt == nil || got.LifecycleSeq != 3 {
		t.Fatalf("recovered record = %+v", got)
	}
	third, _ := openStore(t, dir)
	if again, _ := third.Get(rec.ID); again.Status != Failed {
		t.Fatalf("recovery was not persisted: %s", again.Status)
	}
	if !strings.Contains(report.String(), "marked failed") {
		t.Fatalf("report text = %q", report.String())
	}
}

func TestTruncatedTaskFileIsQuarantinedAndTheRestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	good, bad := mustCreate(t, s, "good"), mustCreate(t, s, "bad")
	path := filepath.Join(dir, "tasks", bad.ID+".json")
	data, _ := os.ReadFile(path)
	half := data[:len(data)/2]
	if err := os.WriteFile(path, half, 0o600); err != nil {
		t.Fatal(err)
	}

	again, report := openStore(t, dir)
	if report.Loaded != 1 || len(report.Quarantined) != 1 {
		t.Fatalf("report = %+v", report)
	}
	q := report.Quarantined[0]
	if q.Path != path || !strings.HasPrefix(q.MovedTo, path+".corrupt-") || !strings.Contains(q.Reason, "not valid JSON") {
		t.Fatalf("quarantine = %+v", q)
	}
	if kept, err := os.ReadFile(q.MovedTo); err != nil || string(kept) != string(half) {
		t.Fatalf("the damaged bytes were not kept: %v", err)
	}
	if _, err := again.Get(good.ID); err != nil {
		t.Fatalf("the intact task did not load: %v", err)
	}
	if _, err := again.Get(bad.ID); err == nil {
		t.Fatal("a corrupt record was served")
	}
	if q := readQueue(t, dir); len(q) != 1 || q[0] != good.ID {
		t.Fatalf("queue still lists the quarantined task: %v", q)
	}
	if !strings.Contains(report.String(), "moved to "+q.MovedTo) {
		t.Fatalf("report text = %q", report.String())
	}
}

func TestLeftoverPendingFilesAreCompletedOrQuarantined(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	whole, cut := mustCreate(t, s, "whole"), mustCreate(t, s, "cut")
	tasksDir := filepath.Join(dir, "tasks")

	// A whole staged write the crash did not get to rename: it is newer
	// than the record and must win.
	newer := whole
	newer.Prompt = "whole, updated"
	data, _ := json.Marshal(newer)
	os.WriteFile(filepath.Join(tasksDir, "."+whole.ID+".json.pending"), data, 0o600)
	// A staged write cut short: the record it was replacing must survive.
	data, _ = json.Marshal(cut)
	os.WriteFile(filepath.Join(tasksDir, "."+cut.ID+".json.pending"), data[:20], 0o600)

	again, report := openStore(t, dir)
	if len(report.Completed) != 1 || report.Completed[0] != whole.ID || len(report.Quarantined) != 1 ||
		!strings.HasPrefix(report.Quarantined[0].MovedTo, filepath.Join(tasksDir, cut.ID+".json.pending.corrupt-")) {
		t.Fatalf("report = %+v", report)
	}
	if got, _ := again.Get(whole.ID); got.Prompt != "whole, updated" {
		t.Fatalf("completed staged write not applied: %q", got.Prompt)
	}
	if got, err := again.Get(cut.ID); err != nil || got.Prompt != "cut" {
		t.Fatalf("record behind a cut staged write: %+v %v", got, err)
	}
	left, _ := filepath.Glob(filepath.Join(tasksDir, ".*.pending"))
	if len(left) != 0 {
		t.Fatalf("pending files left behind: %v", left)
	}
}

func TestCorruptQueueIsRebuiltFromRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	a, b := mustCreate(t, s, "a"), mustCreate(t, s, "b")
	os.WriteFile(filepath.Join(dir, "queue.json"), []byte(`{"queue":["task_`), 0o600)
	_, report := openStore(t, dir)
	if len(report.Quarantined) != 1 || !strings.HasSuffix(filepath.Dir(report.Quarantined[0].MovedTo), filepath.Base(dir)) {
		t.Fatalf("report = %+v", report)
	}
	if q := readQueue(t, dir); len(q) != 2 || q[0] != a.ID || q[1] != b.ID {
		t.Fatalf("rebuilt queue = %v, want [%s %s]", q, a.ID, b.ID)
	}
}

// CONTRACT.md §6.7: one JSON file per task, written atomically.
func TestAtomicWritesNeverExposeAPartialRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	rec := mustCreate(t, s, strings.Repeat("large prompt ", 5000))
	path := filepath.Join(dir, "tasks", rec.ID+".json")
	var done atomic.Bool
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for reads := 0; !done.Load() || reads < 50; reads++ {
			data, err := os.ReadFile(path)
			var got TaskRecord
			if err == nil {
				err = json.Unmarshal(data, &got)
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := 0; i < 60; i++ {
		g := Gate{ID: newGateID(), Gate: "test", Command: "go test", Status: "passed"}
		if err := s.RecordGate(rec.ID, g, nil); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	if err := <-errs; err != nil {
		t.Fatalf("a reader saw a partial record: %v", err)
	}
	got, _ := s.Get(rec.ID)
	if len(got.Gates) != 60 {
		t.Fatalf("gates = %d", len(got.Gates))
	}
}

func TestPrefixResolution(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, t.TempDir())
	a, b := mustCreate(t, s, "a"), mustCreate(t, s, "b")
	cases := []struct{ in, wantID, wantErr string }{
		{a.ID, a.ID, ""},
		{a.ID[:14], a.ID, ""},
		{b.ID[:14], b.ID, ""},
		{"task_", "", "Ambiguous task prefix 'task_': matches 2 tasks"},
		{"task_zz", "", "Task not found: task_zz"},
		{"", "", "Task not found: "},
	}
	for _, c := range cases {
		got, err := s.Get(c.in)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("Get(%q) err = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.ID != c.wantID {
			t.Errorf("Get(%q) = %s, %v; want %s", c.in, got.ID, err, c.wantID)
		}
	}
}

func TestRunnerRunsQueuedTasksAndRecordsOutcomes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	ok, bad := mustCreate(t, s, "ok"), mustCreate(t, s, "bad") // queued before the runner exists
	ran := make(chan string, 2)
	err := s.AttachRunner(context.Background(), func(ctx context.Context, rec TaskRecord) (string, error) {
		defer func() { ran <- rec.ID }()
		if TaskIDFrom(ctx) != rec.ID {
			return "", errors.New("context does not carry the task id")
		}
		if rec.Prompt == "bad" {
			return "", errors.New("tests failed")
		}
		return "all green", nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	<-ran
	<-ran
	s.Close() // waits for the bookkeeping of both runs
	got, _ := s.Get(ok.ID)
	if got.Status != Completed || got.ResultSummary != "all green" || got.StartedAt == nil || got.DurationMS == nil || got.LifecycleSeq != 3 {
		t.Fatalf("completed task = %+v", got)
	}
	got, _ = s.Get(bad.ID)
	if got.Status != Failed || got.Error != "tests failed" {
		t.Fatalf("failed task = %+v", got)
	}
	if q := readQueue(t, dir); len(q) != 0 {
		t.Fatalf("queue after runs = %v", q)
	}
}

func TestCancelDispositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := openStore(t, dir)
	queued := mustCreate(t, s, "queued")
	rec, d, err := s.Cancel(queued.ID[:12])
	if err != nil || d != Forced || rec.Status != Canceled || rec.Timeline[len(rec.Timeline)-1].Kind != "canceled" {
		t.Fatalf("cancel queued = %+v %s %v", rec, d, err)
	}
	if q := readQueue(t, dir); len(q) != 0 {
		t.Fatalf("canceled task still queued: %v", q)
	}
	if _, d, _ := s.Cancel(queued.ID); d != AlreadyFinished {
		t.Fatalf("cancel finished = %s", d)
	}

	started, stopped := make(chan struct{}), make(chan struct{})
	s.AttachRunner(context.Background(), func(ctx context.Context, _ TaskRecord) (string, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return "", ctx.Err()
	}, 1)
	running := mustCreate(t, s, "running")
	<-started
	if rec, d, err := s.Cancel(running.ID); err != nil || d != Requested || rec.Status != Running {
		t.Fatalf("cancel running = %+v %s %v", rec, d, err)
	}
	<-stopped
	s.Close()
	if got, _ := s.Get(running.ID); got.Status != Canceled {
		t.Fatalf("running task after cancel = %s", got.Status)
	}
	again, _ := openStore(t, dir)
	if got, _ := again.Get(running.ID); got.Status != Canceled {
		t.Fatalf("cancellation not persisted: %s", got.Status)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultDir(env(map[string]string{"CODEWHALE_TASKS_DIR": "/x/tasks", "CODEWHALE_HOME": "/h"})); got != "/x/tasks" {
		t.Errorf("CODEWHALE_TASKS_DIR: %s", got)
	}
	if got := DefaultDir(env(map[string]string{"CODEWHALE_HOME": "/h"})); got != "/h/tasks" {
		t.Errorf("CODEWHALE_HOME: %s", got)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven chars", 10, "eleven ..."},
		{"a\x00b\tc\nd", 10, "ab\tc\nd"},
		{"ééééééééééé", 10, "ééééééé..."},
	}
	for _, c := range cases {
		if got := Summarize(c.in, c.limit); got != c.want {
			t.Errorf("Summarize(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
	}
}
