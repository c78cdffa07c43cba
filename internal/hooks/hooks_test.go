package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
)

func runner(t *testing.T, specs ...config.Hook) (*Runner, string) {
	t.Helper()
	ws := t.TempDir()
	r, err := New(Options{Use: Trusted, User: specs, UserFile: "config.toml", Home: t.TempDir(), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return r, ws
}

func bashCall(cmd string) engine.HookCall {
	in, _ := json.Marshal(map[string]any{"action": "run", "command": cmd})
	return engine.HookCall{SessionID: "s1", TurnID: "t1", Tool: "Bash", CallID: "c1", Input: in}
}

// CONTRACT.md §17.4: a malformed hook is an error naming the file and the hook; timeout_ms is bounded.
func TestCompileRefusesBadHooks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec config.Hook
		want string
	}{
		{config.Hook{Event: "tool_before", Command: "x"}, `config.toml: hooks[0]: unknown event "tool_before"`},
		{config.Hook{Event: "turn_end"}, "command is empty"},
		{config.Hook{Event: "turn_end", Command: "x", Matcher: "Bash"}, "matcher applies to tool_call_before"},
		{config.Hook{Event: "tool_call_before", Command: "x", Matcher: "Bash(rm"}, "must end the alternative"},
		{config.Hook{Event: "tool_call_before", Command: "x", Matcher: "Bash||File"}, "an alternative is empty"},
		{config.Hook{Event: "tool_call_before", Command: "x", TimeoutMS: 700_000}, "timeout_ms 700000 is outside"},
	} {
		_, err := New(Options{Use: Trusted, User: []config.Hook{tc.spec}, UserFile: "config.toml", Workspace: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// CONTRACT.md §17.4: matchers: Tool, Tool:action, Tool(glob), alternatives with |, * across /.
// README.md "Hooks": matchers: Tool, Tool:action, Tool(glob), alternatives with |.
func TestMatcher(t *testing.T) {
	t.Parallel()
	file := func(action, path string) engine.HookCall {
		in, _ := json.Marshal(map[string]any{"action": action, "path": path})
		return engine.HookCall{Tool: "File", Input: in}
	}
	for _, tc := range []struct {
		matcher string
		call    engine.HookCall
		want    bool
	}{
		{"", bashCall("ls"), true},
		{"Bash", bashCall("ls"), true},
		{"File", bashCall("ls"), false},
		{"Bash(rm *)", bashCall("rm -rf /tmp/x"), true},
		{"Bash(rm *)", bashCall("ls; rm -rf /"), false},
		{"Bash(*rm -rf /*)", bashCall("ls; rm -rf /"), true},
		{"File:write|File:edit", file("write", "a.go"), true},
		{"File:write|File:edit", file("read", "a.go"), false},
		{"File:*(*.env)", file("read", "config/.env"), true},
		{"mcp_*", engine.HookCall{Tool: "mcp_github_create_issue"}, true},
	} {
		h, err := compile(config.Hook{Event: engine.HookToolBefore, Command: "true", Matcher: tc.matcher}, "f", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.matches(tc.call); got != tc.want {
			t.Errorf("%q on %s %s: %v, want %v", tc.matcher, tc.call.Tool, tc.call.Input, got, tc.want)
		}
	}
}

// CONTRACT.md §17.4: exit 0 proceeds reading a JSON answer, exit 2 blocks with stderr, anything else is reported as
// going on as if it had not run.
// README.md "Hooks": exit 0 proceeds, exit 2 blocks with stderr as the reason, a JSON decision block/ask/allow on stdout is read, anything else is reported and skipped.
func TestAnswersByExitCodeAndJSON(t *testing.T) {
	t.Parallel()
	hook := func(cmd string) config.Hook {
		return config.Hook{Name: "h", Event: engine.HookToolBefore, Command: cmd}
	}
	for _, tc := range []struct {
		cmd        string
		block, ask bool
		reason     string
		notice     string
	}{
		{"true", false, false, "", ""},
		{"echo 'no rm here' >&2; exit 2", true, false, "no rm here", ""},
		{`echo '{"decision":"deny","reason":"policy says no"}'`, true, false, "policy says no", ""},
		{`echo '{"decision":"ask","reason":"touches prod"}'`, false, true, "touches prod", ""},
		{`echo '{"decision":"allow"}'`, false, false, "", ""},
		{"echo broken >&2; exit 3", false, false, "", "Hook h (tool_call_before, config.toml) failed (exit 3): broken; the call goes on as if it had not run."},
		{`echo '{"decision":'`, false, false, "", "printed JSON that could not be read"},
		{`echo '{"decision":"maybe"}'`, false, false, "", `answered an unknown decision "maybe"`},
		{"/nonexistent/hook-binary", false, false, "", "failed (exit 127)"},
	} {
		r, _ := runner(t, hook(tc.cmd))
		v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
		if v.Block != tc.block || v.Ask != tc.ask || v.Reason != tc.reason {
			t.Errorf("%s: verdict %+v", tc.cmd, v)
		}
		if got := strings.Join(v.Notices, "\n"); (tc.notice == "") != (got == "") || !strings.Contains(got, tc.notice) {
			t.Errorf("%s: notices %q, want %q", tc.cmd, got, tc.notice)
		}
	}
}

// The payload is on stdin; credentials are not in the environment.
// CONTRACT.md §17.4: the payload on stdin and the scrubbed environment plus CODEWHALE_HOOK_EVENT and
// CODEWHALE_WORKSPACE.
// README.md "Hooks": a hook reads its JSON payload on stdin and its environment has no credentials.
func TestPayloadAndScrubbedEnvironment(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-should-not-leak")
	t.Setenv("MY_SERVICE_TOKEN", "tok-should-not-leak")
	t.Setenv("PLAIN_SETTING", "visible")
	out := filepath.Join(t.TempDir(), "seen")
	r, ws := runner(t, config.Hook{Event: engine.HookToolAfter, Command: "cat > " + out + ".json; env > " + out + ".env"})
	res := engine.ToolOutcome{Content: "hello", Success: true}
	call := bashCall("echo hello")
	call.Result = &res
	r.Run(context.Background(), engine.HookToolAfter, call)
	var p map[string]any
	data, _ := os.ReadFile(out + ".json")
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("payload %q: %v", data, err)
	}
	args, _ := p["arguments"].(map[string]any)
	result, _ := p["result"].(map[string]any)
	if p["event"] != "tool_call_after" || p["session_id"] != "s1" || p["tool"] != "Bash" || p["action"] != "run" ||
		p["workspace"] != ws || args["command"] != "echo hello" || result["content"] != "hello" || result["success"] != true {
		t.Errorf("payload %s", data)
	}
	env, _ := os.ReadFile(out + ".env")
	if strings.Contains(string(env), "should-not-leak") || !strings.Contains(string(env), "PLAIN_SETTING=visible") ||
		!strings.Contains(string(env), "CODEWHALE_HOOK_EVENT=tool_call_after") {
		t.Errorf("environment:\n%s", env)
	}
}

// CONTRACT.md §17.4: each message_submit sees the previous rewrite and a block wins and stops the rest.
// README.md "Hooks": message_submit may rewrite or block the message.
func TestMessageRewritesChainAndABlockStops(t *testing.T) {
	t.Parallel()
	r, _ := runner(t,
		config.Hook{Event: engine.HookMessageSubmit, Command: `python3 -c 'import json,sys; m=json.load(sys.stdin)["message"]; print(json.dumps({"message": m + " [one]"}))'`},
		config.Hook{Event: engine.HookMessageSubmit, Command: `python3 -c 'import json,sys; m=json.load(sys.stdin)["message"]; print(json.dumps({"message": m + " [two]"}))'`})
	v := r.Run(context.Background(), engine.HookMessageSubmit, engine.HookCall{Message: "hello"})
	if v.Message != "hello [one] [two]" || v.Block {
		t.Errorf("verdict %+v", v)
	}
	r2, _ := runner(t,
		config.Hook{Event: engine.HookToolBefore, Command: `echo '{"decision":"ask","reason":"first asks"}'`},
		config.Hook{Event: engine.HookToolBefore, Command: "echo second blocks >&2; exit 2"},
		config.Hook{Name: "never", Event: engine.HookToolBefore, Command: "exit 3"})
	v = r2.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
	if !v.Block || v.Reason != "second blocks" || len(v.Notices) != 0 {
		t.Errorf("verdict %+v", v)
	}
}

// README.md "Hooks": shell_env's env joins the commands' environment and session_start may show a message.
func TestShellEnvAndSessionStart(t *testing.T) {
	t.Parallel()
	r, _ := runner(t,
		config.Hook{Event: ShellEnv, Command: `echo '{"env":{"PROJECT_MODE":"dev","B":"1","bad name":"x"}}'`},
		config.Hook{Event: ShellEnv, Command: `echo '{"env":{"B":"2"}}'`},
		config.Hook{Name: "hello", Event: SessionStart, Command: `echo '{"message":"remember the staging freeze"}'`})
	env, lines := r.ShellEnv(context.Background(), "s1")
	if strings.Join(env, " ") != "B=2 PROJECT_MODE=dev" || len(lines) != 1 || !strings.Contains(lines[0], `"bad name"`) {
		t.Errorf("env %q lines %q", env, lines)
	}
	if got := r.SessionStart(context.Background(), "s1"); len(got) != 1 || got[0] != "session_start hook hello: remember the staging freeze" {
		t.Errorf("session start %q", got)
	}
}

// A project's hooks.toml runs only once trusted, and an edit needs a new
// trust.
// CONTRACT.md §17.4: the project file runs only once trusted by its SHA-256, and an edit needs trust again.
// README.md "Hooks": a project hooks.toml does nothing until trusted, and an edit needs a new trust.
func TestProjectHooksNeedTrust(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	file := ProjectFile(ws)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[[hooks]]\nevent = \"tool_call_before\"\nmatcher = \"Bash\"\ncommand = \"exit 2\"\n")
	open := func(use Use) *Runner {
		r, err := New(Options{Use: use, Home: home, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open(Trusted)
	if !r.Configured() || r.Has(engine.HookToolBefore) {
		t.Fatal("an untrusted project file must be known but not run")
	}
	if _, p := r.List(); !strings.Contains(p.Line(), "defines 1 hook(s) (tool_call_before) that do not run until you trust the file") {
		t.Errorf("line %q", p.Line())
	}
	if !open(All).Has(engine.HookToolBefore) {
		t.Error("--hooks runs the untrusted file")
	}
	msg, err := r.Trust()
	if err != nil || !strings.Contains(msg, "Trusted "+file) || !r.Has(engine.HookToolBefore) {
		t.Fatalf("trust: %q %v", msg, err)
	}
	if !open(Trusted).Has(engine.HookToolBefore) {
		t.Error("trust must hold in the next session")
	}
	write("[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"exit 2\"\n")
	r = open(Trusted)
	if _, p := r.List(); r.Has(engine.HookToolBefore) || !p.Changed || !strings.Contains(p.Line(), "changed since you trusted it") {
		t.Errorf("an edited file must be trusted again: %q", p.Line())
	}
	write("[[hooks]]\nevnt = \"x\"\n")
	if _, err := New(Options{Use: Trusted, Home: home, Workspace: ws}); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a malformed file: %v", err)
	}
	if _, err := New(Options{Use: Off, Home: home, Workspace: ws}); err != nil {
		t.Errorf("--no-hooks must not even read it: %v", err)
	}
}

func TestNotificationsRunInTheBackgroundAndCloseWaits(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "n")
	r, _ := runner(t, config.Hook{Event: engine.HookNotification, Matcher: "approval_waiting",
		Command: "cat > " + out})
	r.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyTurnDone, Text: "done"}, nil)
	r.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyApprovalWaiting, Text: "approve Bash"}, nil)
	r.Close()
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), `"kind":"approval_waiting"`) || strings.Contains(string(data), "turn_done") {
		t.Errorf("notification payload %s", data)
	}
}

// BenchmarkHasUnconfiguredEvent is the cost of a seam whose event no hook
// listens to, in a session with hooks for other events.
func BenchmarkHasUnconfiguredEvent(b *testing.B) {
	r, err := New(Options{Use: Trusted, User: []config.Hook{{Event: engine.HookTurnEnd, Command: "true"}}, Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r.Has(engine.HookToolBefore) {
			b.Fatal("no tool hook")
		}
	}
}

// A hooks.toml that links out of the workspace is not read: the session
// start says so and how to go on.
func TestProjectHooksLinkedOutsideAreRefused(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "hooks.toml")
	if err := os.WriteFile(target, []byte("[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"echo outside\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, ProjectFile(ws)); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Use: Trusted, Home: home, Workspace: ws})
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") || !strings.Contains(err.Error(), "--no-project-config") {
		t.Fatalf("a hooks.toml linked outside: %v", err)
	}
}
