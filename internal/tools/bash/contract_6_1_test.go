package bash

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
)

// CONTRACT.md §6.1: a foreground timeout kills the process tree (a forked child included) and reports the timeout
// with both streams.
func TestContract61ForegroundTimeoutKillsTheTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	res := f.mustCall(`{"command":"echo out; echo err >&2; sleep 300 & echo $! > child.pid; wait","timeout_ms":1000}`)
	if !strings.HasPrefix(res.Content, "Command timed out after 1000ms; process killed.\n") ||
		!strings.Contains(res.Content, "\n\nSTDOUT:\nout\n\n\nSTDERR:\nerr\n") || res.Success {
		t.Fatalf("%q", res.Content)
	}
	raw, err := os.ReadFile(filepath.Join(f.tc.Workspace, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || runtime.GOOS != "linux" {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the forked child %d outlived the timeout", pid)
		}
	}
}

// CONTRACT.md §6.1: the field aliases: working_dir for cwd, id for task_id, block for wait, timeout_secs (seconds)
// and timeout for timeout_ms; two spellings of one field are refused.
func TestContract61FieldAliases(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	if err := os.Mkdir(filepath.Join(f.tc.Workspace, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := f.mustCall(`{"command":"pwd","working_dir":"sub"}`); res.Content != filepath.Join(f.tc.Workspace, "sub")+"\n" {
		t.Errorf("working_dir: %q", res.Content)
	}
	id := f.startBackground("sleep 300")
	start := time.Now()
	if res := f.mustCall(`{"action":"wait","id":"` + id + `","block":false,"timeout_secs":30}`); !strings.Contains(res.Content, "still running") || time.Since(start) > 5*time.Second {
		t.Errorf("block=false did not poll: %q after %s", res.Content, time.Since(start))
	}
	start = time.Now()
	f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout_secs":1}`)
	if d := time.Since(start); d < 900*time.Millisecond || d > 10*time.Second {
		t.Errorf("timeout_secs 1 waited %s", d)
	}
	start = time.Now()
	f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout":300}`)
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Errorf("timeout 300 (ms) waited %s", d)
	}
	in, _ := json.Marshal(map[string]any{"action": "wait", "task_id": id, "timeout_ms": 1, "timeout_secs": 1})
	if _, refusal := f.call(t.Context(), string(in)); !strings.Contains(refusal, "send only one of") {
		t.Errorf("two timeout spellings: %q", refusal)
	}
}

// CONTRACT.md §6.1: a command gets the scrubbed environment (the one scrub, internal/secrets): the agent's
// DEEPSEEK_*, *_API_KEY, *_TOKEN and CODEWHALE_* variables never reach it.
func TestContract61CommandsGetTheScrubbedEnvironment(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-bash-0000")
	t.Setenv("GH_TOKEN", "gh-canary-bash")
	t.Setenv("CODEWHALE_HOME", "/canary/home")
	t.Setenv("BASH_PLAIN", "plain-kept")
	f := newFixture(t, Options{})
	for _, in := range []string{`{"command":"env"}`, `{"command":"env","background":true}`} {
		res := f.mustCall(in)
		out := res.Content
		if id, _ := res.Metadata["task_id"].(string); strings.Contains(in, "background") {
			out = f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout_ms":10000}`).Content
		}
		if !strings.Contains(out, "BASH_PLAIN=plain-kept") {
			t.Errorf("%s: the environment is missing: %q", in, out)
		}
		for _, canary := range []string{"sk-canary-bash-0000", "gh-canary-bash", "/canary/home"} {
			if strings.Contains(out, canary) {
				t.Errorf("%s: %q reached the command", in, canary)
			}
		}
	}
}

// CONTRACT.md §6.1 and §15.17: wait blocks until the job exits or its
// timeout: 5 s when none is given, at most 600 s however large timeout_ms
// is, and timeout_ms 0 polls (returns at once).
func TestContract15WaitDefaultsToFiveSecondsAndZeroPolls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	id := f.startBackground("sleep 300")
	start := time.Now()
	res := f.mustCall(`{"action":"wait","task_id":"` + id + `"}`)
	if took := time.Since(start); took < 5*time.Second || took > 20*time.Second || !strings.Contains(res.Content, "still running") {
		t.Errorf("a wait without a timeout returned after %s: %q", took, res.Content)
	}
	start = time.Now()
	res = f.mustCall(`{"action":"wait","task_id":"` + id + `","timeout_ms":0}`)
	if took := time.Since(start); took > time.Second || !strings.Contains(res.Content, "still running") {
		t.Errorf("timeout_ms 0 returned after %s: %q", took, res.Content)
	}
	short := f.startBackground("sleep 0.3; echo finished")
	start = time.Now()
	res = f.mustCall(`{"action":"wait","task_id":"` + short + `","timeout_ms":3600000}`)
	if took := time.Since(start); took > 5*time.Second || !strings.Contains(res.Content, "completed") ||
		!strings.Contains(res.Content, "finished") {
		t.Errorf("a wait over the cap did not end with the job (%s): %q", took, res.Content)
	}
	if jobs.MaxWait != 600*time.Second {
		t.Errorf("the wait cap is %s, want 600s", jobs.MaxWait)
	}
}
