package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/tasks"
)

// CONTRACT.md §6.12: a session that runs the task queue (the TUI) lists what
// it starts the moment it attaches — an automation that came due while
// nothing ran and a queued task — each with the authority it runs with;
// when the host holds them (the TUI, until its first frame has drawn that
// list), none of them runs before ReleaseRuns.
// README.md "Automations": when the TUI starts the task queue a notice lists every run it starts at once, each with its authority.
func TestStartupListsTheRunsItStarts(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEWHALE_HOME", filepath.Join(home, ".codewhale"))
	t.Setenv("CODEWHALE_TASKS_DIR", filepath.Join(home, "tasks"))
	t.Setenv("HOME", home)
	ws := t.TempDir()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("done") })
	getenv := func(k string) string {
		if k == "CODEWHALE_BASE_URL" {
			return srv.URL
		}
		return os.Getenv(k)
	}
	cfg, err := config.Load(config.Flags{Workspace: ws}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	store, err := auto.Open(AutomationsDir(cfg.Home))
	if err != nil {
		t.Fatal(err)
	}
	// Created two hours ago: its hourly run came due while nothing ran.
	store.Now = func() time.Time { return time.Now().Add(-2 * time.Hour).UTC() }
	at, err := store.Create(auto.New{Name: "nightly digest", Prompt: "digest", Schedule: "FREQ=HOURLY", Workspace: ws,
		Ceiling: auto.Ceiling{Posture: "full_access", AutoApprove: true, AllowShell: true, TrustMode: true}})
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := tasks.Open(filepath.Join(home, "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Create(tasks.NewTask{Prompt: "write the changelog", Mode: "agent", Workspace: ws, Posture: "suggest"}); err != nil {
		t.Fatal(err)
	}
	app, err := New(cfg, Options{Version: "test", NoMCP: true, NoJournal: true, RunTasks: true, HoldRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	notice := strings.Join(app.StartupNotices, "\n")
	for _, want := range []string{"Starting 2 background run(s) now", "automation " + at.ID + ` "nightly digest"`,
		"Full Access — its tool calls run without asking anyone; may use shell commands and files outside the workspace",
		`task task_`, `"write the changelog" — Ask — it runs headless`, "/automations pause <id>"} {
		if !strings.Contains(notice, want) {
			t.Errorf("start-up notice lacks %q:\n%s", want, notice)
		}
	}
	// Nothing can signal that a run did not start: the held runner gets
	// as long as a released one needs to reach the model here.
	time.Sleep(300 * time.Millisecond)
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d request(s) reached the model before the runs were released", n)
	}
	app.ReleaseRuns()
	app.ReleaseRuns() // a second call does nothing
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(srv.Requests()); n < 2 {
		t.Fatalf("after ReleaseRuns %d request(s) reached the model, want the task's and the automation's", n)
	}
}

// CONTRACT.md §6.12: a session that closes before its first frame released
// the held runs (the person quit at once, the terminal never drew) leaves
// every queued task queued for the next session, not failed as
// "interrupted": nothing was claimed.
func TestHeldRunsStayQueuedWhenTheSessionEndsFirst(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEWHALE_HOME", filepath.Join(home, ".codewhale"))
	t.Setenv("CODEWHALE_TASKS_DIR", filepath.Join(home, "tasks"))
	t.Setenv("HOME", home)
	ws := t.TempDir()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("done") })
	getenv := func(k string) string {
		if k == "CODEWHALE_BASE_URL" {
			return srv.URL
		}
		return os.Getenv(k)
	}
	cfg, err := config.Load(config.Flags{Workspace: ws}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := tasks.Open(filepath.Join(home, "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := q.Create(tasks.NewTask{Prompt: "write the changelog", Mode: "agent", Workspace: ws, Posture: "suggest"})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	app, err := New(cfg, Options{Version: "test", NoMCP: true, NoJournal: true, RunTasks: true, HoldRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := app.Tasks.Get(rec.ID); err != nil || got.Status != tasks.Queued {
		t.Fatalf("before release: %s %v, want queued", got.Status, err)
	}
	app.Close()
	again, _, err := tasks.Open(filepath.Join(home, "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got, err := again.Get(rec.ID); err != nil || got.Status != tasks.Queued {
		t.Fatalf("after a close before release: %s (%s) %v, want queued", got.Status, got.Error, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d request(s) reached the model though nothing was released", n)
	}
}
