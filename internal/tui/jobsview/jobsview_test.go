package jobsview_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tui/jobsview"
)

var fixed = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// manager returns a real job manager on a fixed clock (so elapsed times
// print as 0s) that kills its jobs when the test ends.
func manager(t *testing.T, statePath string) *jobs.Manager {
	t.Helper()
	m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", StateDir: statePath, KillGrace: 200 * time.Millisecond,
		Clock: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func start(t *testing.T, m *jobs.Manager, cmd string) *jobs.Job {
	t.Helper()
	j, err := m.Start(jobs.Spec{Command: cmd, Dir: t.TempDir(), Background: true, KeepStdin: true})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func run(m *jobs.Manager, arg string) jobsview.Result {
	return jobsview.Run(context.Background(), m, arg)
}

// CONTRACT.md §14.9: an empty /jobs list answers the exact sentence.
func TestEmptyListIsTheExactSentence(t *testing.T) {
	t.Parallel()
	want := "No live Bash jobs. Bash jobs are process-local; after a restart, inspect durable task artifacts for prior command output."
	for _, arg := range []string{"", "list", "  LIST "} {
		if got := run(manager(t, ""), arg); got.Text != want || got.IsError {
			t.Errorf("/jobs %q = %+v", arg, got)
		}
	}
	if got := run(nil, ""); got.Text != want {
		t.Errorf("nil manager: %q", got.Text)
	}
}

// CONTRACT.md §14.9: the list shows running jobs first with exit=<n> or exit=-.
func TestListShowsRunningFirstWithExactLayout(t *testing.T) {
	t.Parallel()
	m := manager(t, "")
	done := start(t, m, "printf 'line one\\nline two\\n'")
	<-done.Done()
	running := start(t, m, "sleep 30")
	got := run(m, "list").Text
	want := fmt.Sprintf("Bash jobs (2)\n"+
		"----------------------------------------\n"+
		"%s  running   0s  exit=-\n"+
		"  cwd: %s\n"+
		"  cmd: sleep 30\n"+
		"%s  complete  0s  exit=0\n"+
		"  cwd: %s\n"+
		"  cmd: printf 'line one\\nline two\\n'\n"+
		"  tail: line one\\nline two\n"+
		"Controls: /jobs show <id>, /jobs poll <id>, /jobs wait <id>, /jobs stdin <id> <input>, /jobs cancel <id>, /jobs cancel-all.",
		running.ID(), snapshot(t, m, running.ID()).Cwd, done.ID(), snapshot(t, m, done.ID()).Cwd)
	if got != want {
		t.Errorf("list:\n%s\nwant:\n%s", got, want)
	}
}

func snapshot(t *testing.T, m *jobs.Manager, id string) jobs.Snapshot {
	t.Helper()
	s, err := m.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestShowOpensAPagerWithTheJobDetail(t *testing.T) {
	t.Parallel()
	m := manager(t, "")
	j := start(t, m, "echo out; echo err >&2")
	<-j.Done()
	got := run(m, "show "+j.ID())
	if got.PagerTitle != "Bash Job "+j.ID() {
		t.Fatalf("title = %q", got.PagerTitle)
	}
	for _, line := range []string{"Job: " + j.ID(), "Status: complete", "Command: echo out; echo err >&2", "Elapsed: 0s",
		"Exit Code: 0", "Stdin Available: false", "Completion State: live in this TUI process.", "STDOUT (4 bytes):\nout",
		"STDERR (4 bytes):\nerr"} {
		if !strings.Contains(got.PagerBody, line) {
			t.Errorf("show body lacks %q:\n%s", line, got.PagerBody)
		}
	}
}

// CONTRACT.md §14.9: stdin, poll and cancel drive a real process.
func TestStdinPollAndCancelDriveARealProcess(t *testing.T) {
	t.Parallel()
	m := manager(t, "")
	j := start(t, m, "cat")
	got := run(m, "stdin "+j.ID()+" hello there")
	if got.IsError || !strings.HasPrefix(got.Text, "Bash job "+j.ID()+": running exit=- elapsed=0s\n\nSTDOUT:\nhello there") {
		t.Errorf("stdin = %+v", got)
	}
	if got := run(m, "poll "+j.ID()); got.Text != "Bash job "+j.ID()+": running exit=- elapsed=0s\n\n(no new output)" {
		t.Errorf("poll after reading everything = %q", got.Text)
	}
	got = run(m, "cancel "+j.ID())
	if !strings.HasPrefix(got.Text, "Bash job "+j.ID()+": killed exit=") {
		t.Errorf("cancel = %q", got.Text)
	}
	if got := run(m, "cancel-all"); got.Text != "No running commands to cancel." {
		t.Errorf("cancel-all with none running = %q", got.Text)
	}
}

func TestCancelAllNamesWhatItStopped(t *testing.T) {
	t.Parallel()
	m := manager(t, "")
	a, b := start(t, m, "sleep 30"), start(t, m, "sleep 30")
	ids := []string{a.ID(), b.ID()}
	if ids[0] > ids[1] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	if got, want := run(m, "kill-all").Text, "Canceled 2 command(s): "+ids[0]+", "+ids[1]; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// CONTRACT.md §14.9: the subcommands' usage errors and unknown ids.
func TestUsageErrorsAndLookupFailures(t *testing.T) {
	t.Parallel()
	m := manager(t, "")
	cases := []struct{ arg, want string }{
		{"show", "Usage: /jobs show <id>"},
		{"poll", "Usage: /jobs poll <id>"},
		{"stdin shell_1", "Usage: /jobs stdin <id> <input>"},
		{"close-stdin", "Usage: /jobs close-stdin <id>"},
		{"cancel", "Usage: /jobs cancel <id>"},
		{"frob x", "Usage: /jobs [list|show <id>|poll <id>|wait <id>|stdin <id> <input>|close-stdin <id>|cancel <id>|cancel-all]"},
	}
	for _, c := range cases {
		if got := run(m, c.arg); !got.IsError || got.Text != c.want {
			t.Errorf("/jobs %s = %+v, want error %q", c.arg, got, c.want)
		}
	}
	if got := run(m, "show shell_nope"); got.IsError || got.Text != "Command lookup failed: Task shell_nope not found" {
		t.Errorf("lookup failure = %+v", got)
	}
}

func TestStaleJobsAreListedAsStaleAndTakeNoInput(t *testing.T) {
	t.Parallel()
	state := t.TempDir() // a state file left by a process that is gone
	if err := os.WriteFile(filepath.Join(state, "1-dead.json"), []byte(`{"jobs":[{"id":"shell_deadbeef","command":"make watch","cwd":"/w"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := manager(t, state)
	list := run(m, "").Text
	if !strings.Contains(list, "shell_deadbeef  stale     0s  exit=-") ||
		!strings.Contains(list, "tail: Process is no longer attached to this TUI session.") {
		t.Errorf("stale list:\n%s", list)
	}
	if got := run(m, "stdin shell_deadbeef y"); !got.IsError || !strings.Contains(got.Text, "stale") {
		t.Errorf("stdin to a stale job = %+v", got)
	}
	if got := run(m, "show shell_deadbeef").PagerBody; !strings.Contains(got, "Completion state: stale after restart; the process is no longer running.") {
		t.Errorf("stale show:\n%s", got)
	}
}

func TestElapsedFormatting(t *testing.T) {
	t.Parallel()
	cases := map[int64]string{0: "0s", 450: "450ms", 999: "999ms", 1000: "1s", 42_000: "42s", 65_000: "1m 05s",
		3_600_000: "60m 00s"}
	for ms, want := range cases {
		if got := jobsview.Elapsed(ms); got != want {
			t.Errorf("Elapsed(%d) = %q, want %q", ms, got, want)
		}
	}
}
