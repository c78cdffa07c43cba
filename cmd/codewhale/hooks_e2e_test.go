package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A tool_call_before hook blocks a Bash call: the command never runs and
// the hook's reason is what the model reads.
// README.md "Hooks": a tool_call_before hook blocks a call: nothing runs and the model reads the reason.
func TestHookBlocksABashCallAndTheModelReadsWhy(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "b", Name: "Bash", Args: `{"command":"touch pwned.txt"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "ok", Name: "Bash", Args: `{"command":"echo allowed-output"}`}),
		fakemodel.Text("Understood."))
	c := newCLI(t, srv)
	c.config("[[hooks]]\nname = \"no-touch\"\nevent = \"tool_call_before\"\nmatcher = \"Bash(touch *)\"\n" +
		"command = \"echo 'touch is not allowed in this repository; edit files with File' >&2; exit 2\"\n")
	out, errOut, code := c.run("exec", "--auto", "make a file")
	if code != 0 || out != "Understood.\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "pwned.txt")); err == nil {
		t.Error("the blocked command ran")
	}
	want := "Tool 'Bash' was blocked by a tool_call_before hook: touch is not allowed in this repository; edit files with File."
	if !srv.Requests()[1].HasToolResult(want) {
		t.Errorf("the model did not read the hook's reason:\n%s", toolMessages(srv.Requests()[1]))
	}
	if !srv.Requests()[2].HasToolResult("allowed-output") {
		t.Error("a call the matcher does not cover must run")
	}
}

// A message_submit hook rewrites the message the model receives; another
// blocks one, and nothing is sent.
func TestMessageSubmitHookRewritesOrBlocks(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c := newCLI(t, srv)
	c.config("[[hooks]]\nevent = \"message_submit\"\ncommand = '''python3 -c 'import json,sys; m=json.load(sys.stdin)[\"message\"]; " +
		"print(json.dumps({\"message\": \"[ticket ABC-1] \" + m}))' '''\n")
	if _, errOut, code := c.run("exec", "--auto", "fix the login bug"); code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.HasPrefix(got, "[ticket ABC-1] fix the login bug") {
		t.Errorf("the model received %q", got)
	}
	c.config("[[hooks]]\nevent = \"message_submit\"\ncommand = \"grep -q password && { echo 'no secrets in prompts' >&2; exit 2; } || exit 0\"\n")
	_, errOut, code := c.run("exec", "--auto", "my password is hunter2")
	if code != 1 || !strings.Contains(errOut, "Message not sent: a message_submit hook blocked it: no secrets in prompts") {
		t.Errorf("code %d stderr %s", code, errOut)
	}
	_, errOut, code = c.run("exec", "the one-shot path: password")
	if code != 1 || !strings.Contains(errOut, "error: Message not sent: a message_submit hook blocked it: no secrets in prompts\n") {
		t.Errorf("one-shot: code %d stderr %s", code, errOut)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("a blocked message was sent (%d requests)", n)
	}
}

// A hook that hangs is killed at its timeout and reported; the turn goes on
// with the message as typed.
func TestAHangingHookTimesOutAndTheTurnGoesOn(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("still here"))
	c := newCLI(t, srv)
	c.config("[[hooks]]\nname = \"stuck\"\nevent = \"message_submit\"\ntimeout_ms = 400\ncommand = \"sleep 30\"\n")
	start := time.Now()
	out, errOut, code := c.run("exec", "--auto", "hello")
	if code != 0 || out != "still here\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
	if !strings.Contains(errOut, "Hook stuck (message_submit, "+filepath.Join(c.home, ".codewhale", "config.toml")+
		") timed out after 400ms and was killed; the message goes on as if it had not run.") {
		t.Errorf("stderr %q", errOut)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.HasPrefix(got, "hello") {
		t.Errorf("the model received %q", got)
	}
}

// A project's hooks.toml does not run until trusted; --hooks runs it for
// one run, --no-hooks runs nothing.
// README.md "Hooks": codewhale says an untrusted project file does not run; exec --hooks runs it for that run only, exec --no-hooks runs none.
func TestProjectHooksNeedTrustInExec(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("ok") })
	c := newCLI(t, srv)
	writeFiles(t, c.ws, map[string]string{".codewhale/hooks.toml": "[[hooks]]\nevent = \"message_submit\"\n" +
		"command = \"echo '{\\\"message\\\": \\\"FROM-PROJECT-HOOK\\\"}'\"\n"})
	_, errOut, code := c.run("exec", "--auto", "plain")
	if code != 0 || !strings.Contains(errOut, "do not run until you trust the file") {
		t.Errorf("code %d stderr %s", code, errOut)
	}
	if got := srv.Requests()[0].LastUserText(); strings.Contains(got, "FROM-PROJECT-HOOK") {
		t.Error("an untrusted project hook ran")
	}
	if _, errOut, code := c.run("exec", "--auto", "--hooks", "plain"); code != 0 || !strings.Contains(errOut, "runs for this run only (--hooks)") {
		t.Errorf("code %d stderr %s", code, errOut)
	}
	if got := srv.Requests()[1].LastUserText(); !strings.HasPrefix(got, "FROM-PROJECT-HOOK") {
		t.Errorf("--hooks must run the project hook: %q", got)
	}
	// The one-shot exec tells of the file as an agent run does.
	if _, errOut, code := c.run("exec", "plain"); code != 0 || !strings.Contains(errOut, "do not run until you trust the file") {
		t.Errorf("one-shot: code %d stderr %s", code, errOut)
	}
	if _, errOut, code := c.run("exec", "--hooks", "plain"); code != 0 || !strings.Contains(errOut, "runs for this run only (--hooks)") {
		t.Errorf("one-shot --hooks: code %d stderr %s", code, errOut)
	}
	if got := srv.Requests()[3].LastUserText(); !strings.HasPrefix(got, "FROM-PROJECT-HOOK") {
		t.Errorf("one-shot --hooks must run the project hook: %q", got)
	}
	c.config("[[hooks]]\nevent = \"message_submit\"\ncommand = \"exit 2\"\n")
	if _, errOut, code := c.run("exec", "--auto", "--no-hooks", "plain"); code != 0 || strings.Contains(errOut, "hooks") {
		t.Errorf("--no-hooks: code %d stderr %s", code, errOut)
	}
}

// Every other event reaches its seam in a real run: session_start's
// message is shown, shell_env's variables are in a Bash command's
// environment, tool_call_after's note is what the model reads after the
// result, turn_end's message is a status and the turn_done notification
// runs (waited for at exit) with its payload on stdin.
// README.md "Hooks": session_start's message is shown, shell_env's variables reach Bash, tool_call_after's note reaches the model, turn_end's message and the notification hook run.
func TestHookEventsReachTheirSeams(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "b", Name: "Bash", Args: `{"command":"echo mode=$PROJECT_MODE"}`}),
		fakemodel.Text("Done."))
	c := newCLI(t, srv)
	c.config(`[[hooks]]
name = "hello"
event = "session_start"
command = "echo '{\"message\": \"branch policy: main is protected\"}'"

[[hooks]]
event = "shell_env"
command = "echo '{\"env\": {\"PROJECT_MODE\": \"staging\"}}'"

[[hooks]]
event = "tool_call_after"
matcher = "Bash"
command = "echo '{\"message\": \"lint found 2 warnings\"}'"

[[hooks]]
event = "turn_end"
command = "echo '{\"message\": \"remember to push\"}'"

[[hooks]]
event = "notification"
matcher = "turn_done"
command = "cat > notified.json"
`)
	out, errOut, code := c.run("exec", "--auto", "what mode is this?")
	if code != 0 || out != "Done.\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	for _, want := range []string{"session_start hook hello: branch policy: main is protected", "turn_end hook: remember to push"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	result := toolMessages(srv.Requests()[1])
	if !strings.Contains(result, "mode=staging") || !strings.Contains(result, "[tool_call_after hook] lint found 2 warnings") {
		t.Errorf("the Bash result the model read:\n%s", result)
	}
	note, err := os.ReadFile(filepath.Join(c.ws, "notified.json"))
	if err != nil || !strings.Contains(string(note), `"event":"notification"`) || !strings.Contains(string(note), `"kind":"turn_done"`) {
		t.Errorf("notification payload %q, %v", note, err)
	}
}

// A notification hook that fails in the background is reported: exec waits
// for it as it exits and prints its failure like any hook's.
func TestAFailingNotificationHookIsReportedAtExit(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Done."))
	c := newCLI(t, srv)
	c.config("[[hooks]]\nname = \"bell\"\nevent = \"notification\"\ncommand = \"sleep 0.3; echo no bell here >&2; exit 3\"\n")
	out, errOut, code := c.run("exec", "--auto", "hello")
	if code != 0 || out != "Done.\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	want := "hooks: Hook bell (notification, " + filepath.Join(c.home, ".codewhale", "config.toml") +
		") failed (exit 3): no bell here; the session goes on as if it had not run.\n"
	if strings.Count(errOut, want) != 1 {
		t.Errorf("stderr %q, want once %q", errOut, want)
	}
}
