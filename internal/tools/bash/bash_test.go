package bash

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
)

func TestRunContentByOutcome(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	tests := []struct {
		name    string
		in      string
		content string // exact, or a prefix when prefix is set
		prefix  bool
		success bool
		status  jobs.Status
		exit    any
	}{
		{"stdout", `{"action":"run","command":"echo hi"}`, "hi\n", false, true, jobs.Completed, 0},
		{"action defaults to run", `{"command":"printf x"}`, "x", false, true, jobs.Completed, 0},
		{"no output", `{"command":"true"}`, "(no output)", false, true, jobs.Completed, 0},
		{"stderr section", `{"command":"echo out; echo err >&2"}`, "out\n\n\nSTDERR:\nerr\n", false, true, jobs.Completed, 0},
		{"failure", `{"command":"echo o; echo bad >&2; exit 3"}`, "Command failed (exit code 3)\n\nSTDOUT:\no\n\n\nSTDERR:\nbad\n", false, false, jobs.Failed, 3},
		{"signal", `{"command":"kill -9 $$"}`, "Command failed (terminated by signal)\n\nSTDOUT:\n\n\nSTDERR:\n", false, false, jobs.Failed, nil},
		{"timeout clamps to 1000ms", `{"command":"echo started; sleep 30","timeout_ms":10}`,
			"Command timed out after 1000ms; process killed.\n", true, false, jobs.TimedOut, nil},
		{"stdin", `{"command":"cat","stdin":"fed"}`, "fed", false, true, jobs.Completed, 0},
		{"stdin alias data", `{"command":"cat","data":"via data"}`, "via data", false, true, jobs.Completed, 0},
		{"combined output", `{"command":"echo a; echo b >&2","combined_output":true}`, "a\nb\n", false, true, jobs.Completed, 0},
		{"cwd", `{"command":"pwd","cwd":"sub"}`, "/sub\n", true, true, jobs.Completed, 0},
	}
	if err := os.Mkdir(f.tc.Workspace+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := f.mustCall(tc.in)
			got := res.Content
			if tc.name == "cwd" {
				got = strings.TrimPrefix(got, f.tc.Workspace)
			}
			if tc.prefix && !strings.HasPrefix(got, tc.content) || !tc.prefix && got != tc.content {
				t.Fatalf("content %q, want %q", res.Content, tc.content)
			}
			if res.Success != tc.success || res.Metadata["status"] != string(tc.status) || res.Metadata["exit_code"] != tc.exit {
				t.Fatalf("success=%v meta=%v", res.Success, res.Metadata)
			}
			if id, _ := res.Metadata["task_id"].(string); !regexp.MustCompile(`^shell_[0-9a-f]{8}$`).MatchString(id) {
				t.Fatalf("task_id %q", id)
			}
			if tc.status == jobs.TimedOut && !strings.Contains(got, "background=true") ||
				tc.status == jobs.TimedOut && !strings.Contains(got, "\n\nSTDOUT:\nstarted\n\n\nSTDERR:\n") {
				t.Fatalf("timeout content lacks the hint or streams: %q", got)
			}
		})
	}
}

func TestRunBoundsLargeOutput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	res := f.mustCall(`{"command":"head -c 100000 /dev/zero | tr '\\0' a; echo; echo 'FAILED: the summary line' >&2"}`)
	note := "...\n\n[Output truncated: showing first 6000 bytes and last 24000 bytes. 70001 bytes omitted.]"
	if !strings.HasPrefix(res.Content, strings.Repeat("a", 6000)+note+"\n\n[Output tail]\n") {
		t.Fatalf("content starts %q", res.Content[:200])
	}
	if !strings.HasSuffix(res.Content, "\n\nSTDERR:\nFAILED: the summary line\n") {
		t.Fatal("stderr lost")
	}
	m := res.Metadata
	if m["stdout_truncated"] != true || m["stdout_omitted"] != int64(70001) || m["stdout_len"] != int64(100001) || m["stderr_truncated"] != false {
		t.Fatalf("metadata %v", m)
	}
}

func TestForegroundCancellationKillsTheCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { f.awaitRunning(); cancel() }()
	res, refusal := f.call(ctx, `{"command":"echo partial; sleep 30"}`)
	if refusal != "" {
		t.Fatal(refusal)
	}
	if !strings.HasPrefix(res.Content, "Command canceled; process killed.\n\nSTDOUT:\n") || res.Success || res.Metadata["status"] != "Killed" {
		t.Fatalf("%+v", res)
	}
}

func TestForegroundRunIsAJobAndCanMoveToJobs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	done := make(chan string)
	go func() { res := f.mustCall(`{"command":"sleep 30"}`); done <- res.Content }()
	snap := f.awaitRunning()
	if snap.Background || snap.Command != "sleep 30" {
		t.Fatalf("foreground job listed as %+v", snap)
	}
	if err := f.m.MoveToBackground(snap.ID); err != nil {
		t.Fatal(err)
	}
	if got := <-done; !strings.HasPrefix(got, "Foreground shell wait moved to /jobs: "+snap.ID+"\n") {
		t.Fatalf("content %q", got)
	}
}

var timing = regexp.MustCompile(`^Task (shell_[0-9a-f]{8}) (still running|completed|failed|killed|timed out) after (\d+ ms|\d+\.\d s|\d+m\d+s)\.\n\n`)

func TestBackgroundWaitInteractCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	id := f.startBackground(`while read l; do echo "echo:$l"; done; echo bye >&2; exit 4`)

	res := f.mustCall(`{"action":"interact","task_id":"` + id + `","input":"one\n","timeout_ms":10000}`)
	if !timing.MatchString(res.Content) || !strings.HasSuffix(res.Content, "\n\necho:one\n") || !res.Success {
		t.Fatalf("interact: %q", res.Content)
	}
	res = f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout_ms":0}`)
	if want := "Task " + id + " still running after "; !strings.HasPrefix(res.Content, want) ||
		!strings.HasSuffix(res.Content, "\n\nBackground task running (no new output).") {
		t.Fatalf("poll: %q", res.Content)
	}
	res = f.mustCall(`{"action":"interact","id":"` + id + `","close_stdin":true,"timeout_ms":10000}`)
	res = f.mustCall(`{"action":"wait","task_id":"` + id + `","wait":true,"timeout_ms":10000}`)
	if sub := timing.FindStringSubmatch(res.Content); sub == nil || sub[2] != "failed" {
		t.Fatalf("final wait: %q", res.Content)
	}
	if res.Success || res.Metadata["exit_code"] != 4 {
		t.Fatalf("final wait meta %v", res.Metadata)
	}
	res = f.mustCall(`{"action":"wait","task_id":"` + id + `"}`)
	if !strings.HasSuffix(res.Content, "\n\nCommand failed (exit code 4)") {
		t.Fatalf("wait after the end: %q", res.Content)
	}
	if _, refusal := f.call(context.Background(), `{"action":"interact","task_id":"`+id+`","stdin":"late"}`); refusal != "stdin is not available for task "+id {
		t.Fatalf("interact on a finished job: %q", refusal)
	}
	res = f.mustCall(`{"action":"cancel","task_id":"` + id + `"}`)
	if res.Content != "Task "+id+" is not running (failed); nothing to cancel." {
		t.Fatalf("cancel of a finished job: %q", res.Content)
	}
}

func TestBackgroundStartMessageAndTimingLine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	res := f.mustCall(`{"command":"sleep 300","background":true}`)
	id := res.Metadata["task_id"].(string)
	if !strings.HasPrefix(res.Content, "Background task started: "+id+"\n") || !strings.Contains(res.Content, `Bash action="wait" task_id="`+id+`"`) {
		t.Fatalf("start content %q", res.Content)
	}
	if res.Metadata["auto_resume_on_completion"] != true || res.Metadata["backgrounded"] != true {
		t.Fatalf("start metadata %v", res.Metadata)
	}
	start := time.Now()
	res = f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout_ms":300}`)
	if !regexp.MustCompile(`^Task ` + id + ` still running after \d+ ms\.\n\nBackground task running \(no new output\)\.$`).MatchString(res.Content) {
		t.Fatalf("wait content %q", res.Content)
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Fatal("wait returned before its timeout")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ = f.call(ctx, `{"action":"wait","task_id":"`+id+`","timeout_ms":60000}`)
	if !strings.HasPrefix(res.Content, "Wait canceled; background shell task "+id+" is still running.\n\nTask "+id+" still running after ") ||
		res.Metadata["wait_canceled"] != true {
		t.Fatalf("canceled wait %q %v", res.Content, res.Metadata)
	}
}

func TestCancelMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if res := f.mustCall(`{"action":"cancel","all":true}`); res.Content != "No running background commands." || res.Metadata["status"] != "Noop" {
		t.Fatalf("%+v", res)
	}
	one := f.startBackground("sleep 300")
	if res := f.mustCall(`{"action":"cancel","task_id":"` + one + `"}`); res.Content != "Canceled background command: "+one {
		t.Fatalf("%q", res.Content)
	}
	a, b := f.startBackground("sleep 300"), f.startBackground("sleep 300")
	ids := []string{a, b}
	if b < a {
		ids = []string{b, a}
	}
	if res := f.mustCall(`{"action":"cancel","all":true}`); res.Content != "Canceled 2 background commands: "+ids[0]+", "+ids[1] {
		t.Fatalf("%q", res.Content)
	}
	c := f.startBackground("sleep 300")
	if res := f.mustCall(`{"action":"cancel","all":true}`); res.Content != "Canceled 1 background command: "+c {
		t.Fatalf("%q", res.Content)
	}
	if rep := f.m.FinishedSinceLastAsked(); len(rep.Jobs) != 0 {
		t.Fatalf("jobs the model cancelled itself are reported back to it: %+v", rep.Jobs)
	}
}
