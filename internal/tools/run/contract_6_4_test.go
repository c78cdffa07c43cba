package run

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/testutil/sandboxtest"
	"github.com/codewhale/codewhale/internal/tools"
)

// TestMain lets the test binary serve as the sandbox helper, as main does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// CONTRACT.md §6.4: Run is a code runner like Bash (CONTRACT.md §6.1): a custom gate is judged by the one command classifier as
// the command `program args…`, so a hard block is refused in every posture with Bash's BLOCKED text and status
// Blocked before anything runs, a secret read needs an explicit approval with the classifier's reason, and the rest
// keeps Run's ordinary Required approval. Every program here is a stand-in that only logs its argv: nothing harmful
// runs even if the refusal regresses.
func TestContract64CustomGatesAreJudgedAsBashJudgesThem(t *testing.T) {
	t.Parallel()
	home, bin := t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "argv.log")
	script := "#!/bin/sh\necho \"STANDIN:$0 $*\" >> " + log + "\n"
	for _, name := range []string{"rm", "sh", "cat", "printenv", "echo"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	standIn := func(name string) string { return filepath.Join(bin, name) }
	f := newFixture(t, Options{}, nil)
	tool := New(Options{Jobs: f.m, Commands: &shellpolicy.Env{Home: home, Workspace: f.tc.Workspace}})
	reg := tools.NewRegistry()
	reg.Register(tool)
	gate := func(program string, args ...string) string {
		in, _ := json.Marshal(map[string]any{"action": "verifiers", "profile": "go", "commands": []map[string]any{
			{"name": "fine", "program": standIn("echo"), "args": []string{"ok"}}, {"name": "hostile", "program": program, "args": args}}})
		return string(in)
	}
	for _, c := range []struct {
		in       string
		approval tools.Approval
		reason   string
		blocked  bool
	}{
		{gate(standIn("echo"), "ok"), tools.Required, "", false},
		{gate(standIn("rm"), "-rf", "/"), tools.Auto, "", true},
		{gate(standIn("sh"), "-c", "rm -rf ~"), tools.Auto, "", true},
		{gate(standIn("cat"), filepath.Join(home, ".ssh", "id_rsa")), tools.Explicit, "secret", false},
		{gate(standIn("printenv"), "DEEPSEEK_API_KEY"), tools.Explicit, "DEEPSEEK_API_KEY", false},
	} {
		call, err := reg.Prepare("Run", json.RawMessage(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if p := call.Policy; p.Approval != c.approval || !strings.Contains(p.Reason, c.reason) || p.ReadOnly {
			t.Errorf("%s: policy %+v, want %v with %q", c.in, p, c.approval, c.reason)
		}
		if !c.blocked {
			continue
		}
		res, err := call.Run(context.Background(), f.tc)
		if err != nil || res.Success || !strings.HasPrefix(res.Content, shellpolicy.BlockedPrefix) || res.Metadata["status"] != "Blocked" {
			t.Errorf("%s was not refused as a hard block: %+v %v", c.in, res, err)
		}
		if n := len(f.m.List()); n != 0 {
			t.Errorf("%s: a refused call started %d jobs", c.in, n)
		}
	}
	if ran, err := os.ReadFile(log); err == nil {
		t.Errorf("a refused gate ran: %s", ran)
	}
}

// CONTRACT.md §6.4: what Run starts gets the scrubbed environment Bash gets (CONTRACT.md §6.1; the agent's DEEPSEEK_*,
// *_API_KEY, *_TOKEN, CODEWHALE_* never reach a test runner or a gate).
func TestContract64ChildrenGetTheScrubbedEnvironment(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-run-0000")
	t.Setenv("GH_TOKEN", "gh-canary-run")
	t.Setenv("CODEWHALE_HOME", "/canary/home")
	t.Setenv("RUN_PLAIN", "plain-kept")
	f := newFixture(t, Options{TestCommand: "env"}, nil)
	var rep testReport
	f.decode(`{"action":"tests"}`, &rep)
	var env envelope
	f.decode(`{"action":"verifiers","profile":"go","commands":[{"name":"env","program":"env"}]}`, &env)
	for what, out := range map[string]string{"tests": rep.Stdout, "a custom gate": env.gate("env").Stdout} {
		if !strings.Contains(out, "RUN_PLAIN=plain-kept") {
			t.Errorf("%s: the environment is missing: %q", what, out)
		}
		for _, canary := range []string{"sk-canary-run-0000", "gh-canary-run", "/canary/home"} {
			if strings.Contains(out, canary) {
				t.Errorf("%s: %q reached the child", what, canary)
			}
		}
	}
}

// CONTRACT.md §6.4: Run's processes run under the call's sandbox, the one Bash's run under: a test command and a
// custom gate that write outside the workspace are refused and nothing outside changes.
func TestContract64RunsUnderTheSandbox(t *testing.T) {
	t.Parallel()
	sb, ws, outside := sandboxtest.WorkspaceWrite(t, sandbox.Options{Helper: os.Args[0]})
	escape := filepath.Join(outside, "pwned")
	f := newFixture(t, Options{TestCommand: "echo in > inside.txt && echo out > " + escape}, nil)
	f.tc = &tools.Context{Workspace: tools.Canonical(ws), Sandbox: sb}
	var rep testReport
	f.decode(`{"action":"tests"}`, &rep)
	if rep.Success || rep.Status != "Failed" {
		t.Errorf("a test command writing outside passed: %+v", rep)
	}
	in, _ := json.Marshal(map[string]any{"action": "verifiers", "profile": "go",
		"commands": []map[string]any{{"name": "escape", "program": "sh", "args": []string{"-c", "echo out > " + escape}}}})
	var env envelope
	f.decode(string(in), &env)
	if g := env.gate("escape"); g.Status != "failed" {
		t.Errorf("a gate writing outside passed: %+v", g)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Errorf("the write inside the workspace failed: %v", err)
	}
	if _, err := os.Stat(escape); !os.IsNotExist(err) {
		t.Errorf("a file appeared outside the workspace: %v", err)
	}
}

// CONTRACT.md §6.4: a test run that times out is killed with its whole process tree (the job rules of CONTRACT.md §6.1), and
// the report says so.
func TestContract64TimeoutKillsTheProcessTree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{TestCommand: "sleep 300 & echo $! > child.pid; wait", TestTimeout: 500 * time.Millisecond}, nil)
	var rep testReport
	f.decode(`{"action":"tests"}`, &rep)
	if rep.Success || rep.Status != "TimedOut" || !strings.Contains(rep.Error, "timed out after 500ms and was killed") {
		t.Fatalf("%+v", rep)
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
			return // gone, or a zombie awaiting its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("the test command's child %d outlived the timeout", pid)
		}
	}
}

// CONTRACT.md §6.4: without shell access (allow_shell off outside Full
// Access) a custom gate — a program of the model's choosing — is refused
// before anything runs, with a message naming allow_shell; the same call
// without `commands` runs the detected gates.
func TestContract64CustomGatesNeedShellAccess(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "argv.log")
	echo := filepath.Join(t.TempDir(), "echo")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\necho \"STANDIN:$*\" >> "+log+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{}, nil)
	reg := tools.NewRegistry()
	reg.Register(New(Options{Jobs: f.m, NoShell: true}))
	in, _ := json.Marshal(map[string]any{"action": "verifiers", "profile": "go",
		"commands": []map[string]any{{"name": "g", "program": echo, "args": []string{"ran"}}}})
	_, err := reg.Prepare("Run", in)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindPermissionDenied || !strings.Contains(te.Error(), "allow_shell") {
		t.Fatalf("a custom gate without shell access: %v", err)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("the refused gate ran")
	}
	if _, err := reg.Prepare("Run", json.RawMessage(`{"action":"verifiers","profile":"go"}`)); err != nil {
		t.Errorf("the detected gates without shell access: %v", err)
	}
}
