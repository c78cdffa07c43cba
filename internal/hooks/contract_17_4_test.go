package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/projecttrust"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// writeProjectHooks writes body as ws's .codewhale/hooks.toml.
func writeProjectHooks(t *testing.T, ws, body string) string {
	t.Helper()
	file := ProjectFile(ws)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// seen runs one hook of event that saves its stdin to a file and returns
// the payload it read.
func seen(t *testing.T, event string, call engine.HookCall) (map[string]any, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "payload.json")
	r, ws := runner(t, config.Hook{Event: event, Command: "cat > " + out})
	r.Run(context.Background(), event, call)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("payload %q: %v", data, err)
	}
	return p, ws
}

// CONTRACT.md §17.4: `[[hooks]]` in the user's config.toml, with event, command, matcher, timeout_ms and name, are
// the session's hooks, attributed to that file.
// README.md "Hooks": [[hooks]] in config.toml with name, event, matcher, command and timeout_ms are the session's hooks.
func TestContract174UserConfigHooksAreRead(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	body := "[[hooks]]\nname = \"guard\"\nevent = \"tool_call_before\"\nmatcher = \"Bash(rm *)\"\n" +
		"command = \"exit 2\"\ntimeout_ms = 250\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string { return map[string]string{"CODEWHALE_HOME": home}[k] }
	c, err := config.Load(config.Flags{Workspace: ws}, env)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Use: Trusted, User: c.File.Hooks, UserFile: c.Path, Home: c.Home, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := r.List()
	if len(st) != 1 || st[0].Name != "guard" || st[0].Event != engine.HookToolBefore || st[0].Matcher != "Bash(rm *)" ||
		st[0].Timeout != 250*time.Millisecond || st[0].Source != filepath.Join(home, "config.toml") {
		t.Fatalf("hooks %+v", st)
	}
	if v := r.Run(context.Background(), engine.HookToolBefore, bashCall("rm -rf x")); !v.Block {
		t.Errorf("the configured hook did not run: %+v", v)
	}
}

// CONTRACT.md §17.4: `[[hooks]]` in the project's config.toml is an error that points to hooks.toml.
func TestContract174HooksInProjectConfigAreAnError(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	project := filepath.Join(ws, ".codewhale", "config.toml")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, []byte("[[hooks]]\nevent = \"turn_end\"\ncommand = \"true\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string { return map[string]string{"CODEWHALE_HOME": home}[k] }
	_, err := config.Load(config.Flags{Workspace: ws}, env)
	if err == nil || !strings.Contains(err.Error(), project) || !strings.Contains(err.Error(), ".codewhale/hooks.toml") {
		t.Fatalf("[[hooks]] in the project config.toml: %v", err)
	}
}

// CONTRACT.md §17.4: timeout_ms defaults to 10000 and is at most 600000.
// README.md "Hooks": timeout_ms defaults to 10000.
func TestContract174TimeoutDefaultAndBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ms   int
		want time.Duration
		ok   bool
	}{
		{0, 10 * time.Second, true},
		{1, time.Millisecond, true},
		{600_000, 10 * time.Minute, true},
		{600_001, 0, false},
		{-1, 0, false},
	} {
		h, err := compile(config.Hook{Event: engine.HookTurnEnd, Command: "true", TimeoutMS: tc.ms}, "config.toml", 0)
		if tc.ok != (err == nil) || tc.ok && h.Timeout != tc.want {
			t.Errorf("timeout_ms %d: hook %+v, err %v", tc.ms, h, err)
		}
	}
}

// CONTRACT.md §17.4: a malformed hook in the project file is a start-up error naming the file and the hook.
func TestContract174MalformedProjectHookNamesFileAndHook(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := writeProjectHooks(t, ws, "[[hooks]]\nevent = \"turn_end\"\ncommand = \"true\"\n\n"+
		"[[hooks]]\nevent = \"turn_start\"\ncommand = \"true\"\n")
	_, err := New(Options{Use: Trusted, Home: t.TempDir(), Workspace: ws})
	if err == nil || !strings.Contains(err.Error(), file+": hooks[1]") || !strings.Contains(err.Error(), `"turn_start"`) {
		t.Fatalf("malformed project hook: %v", err)
	}
}

// CONTRACT.md §17.4: /hooks trust records the file's SHA-256 in $CODEWHALE_HOME/hooks-trust.json; --hooks runs an
// untrusted file for that run without recording trust.
// README.md "Hooks": /hooks trust records the project file's trust; --hooks runs an untrusted file for that run only.
func TestContract174TrustRecordIsTheFilesSHA256(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	body := "[[hooks]]\nevent = \"turn_end\"\ncommand = \"true\"\n"
	file := writeProjectHooks(t, ws, body)
	all, err := New(Options{Use: All, Home: home, Workspace: ws})
	if err != nil || !all.Has(engine.HookTurnEnd) {
		t.Fatalf("--hooks must run the untrusted file: %v", err)
	}
	all.Run(context.Background(), engine.HookTurnEnd, engine.HookCall{})
	if _, err := os.Stat(filepath.Join(home, "hooks-trust.json")); !os.IsNotExist(err) {
		t.Fatalf("--hooks recorded trust: %v", err)
	}
	r, err := New(Options{Use: Trusted, Home: home, Workspace: ws})
	if err != nil || r.Has(engine.HookTurnEnd) {
		t.Fatalf("an untrusted file ran without --hooks: %v", err)
	}
	if _, err := r.Trust(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(home, "hooks-trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]string
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	if got := rec[projecttrust.Canonical(file)]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("record %s, want the SHA-256 of %s", data, file)
	}
}

// CONTRACT.md §17.4: several hooks of one event run in configuration order, the user file first.
func TestContract174UserHooksRunBeforeTheProjectFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	rewrite := func(tag string) string {
		return `python3 -c 'import json,sys; m=json.load(sys.stdin)["message"]; print(json.dumps({"message": m + " [` + tag + `]"}))'`
	}
	writeProjectHooks(t, ws, "[[hooks]]\nevent = \"message_submit\"\ncommand = '''"+rewrite("project")+"'''\n")
	r, err := New(Options{Use: All, Home: t.TempDir(), Workspace: ws, UserFile: "config.toml", User: []config.Hook{
		{Event: engine.HookMessageSubmit, Command: rewrite("user-1")},
		{Event: engine.HookMessageSubmit, Command: rewrite("user-2")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Run(context.Background(), engine.HookMessageSubmit, engine.HookCall{Message: "hi"}); v.Message != "hi [user-1] [user-2] [project]" {
		t.Errorf("order: %+v", v)
	}
}

// CONTRACT.md §17.4: an ask wins over proceeding, whichever hook comes first.
func TestContract174AskWinsOverProceeding(t *testing.T) {
	t.Parallel()
	ask := config.Hook{Event: engine.HookToolBefore, Command: `echo '{"decision":"ask","reason":"touches prod"}'`}
	allow := config.Hook{Event: engine.HookToolBefore, Command: `echo '{"decision":"allow"}'`}
	for _, order := range [][]config.Hook{{ask, allow}, {allow, ask}} {
		r, _ := runner(t, order...)
		v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
		if !v.Ask || v.Block || v.Reason != "touches prod" {
			t.Errorf("verdict %+v", v)
		}
	}
}

// CONTRACT.md §17.4: exit 0 proceeds; stdout is read only when it is a JSON object, whose decision may be empty.
func TestContract174ExitZeroProceeds(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"echo just some text", `echo '{"message":"noted"}'`, `echo '{"decision":""}'`} {
		r, _ := runner(t, config.Hook{Event: engine.HookToolBefore, Command: cmd})
		if v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls")); v.Block || v.Ask || len(v.Notices) != 0 {
			t.Errorf("%s: verdict %+v", cmd, v)
		}
	}
}

// CONTRACT.md §17.4: the glob is matched against the call's main argument: command, path, pattern, query, url,
// name; `Tool:action(glob)` with `*` across `/`.
func TestContract174MatcherMainArgument(t *testing.T) {
	t.Parallel()
	call := func(tool string, args map[string]any) engine.HookCall {
		in, _ := json.Marshal(args)
		return engine.HookCall{Tool: tool, Input: in}
	}
	for _, tc := range []struct {
		matcher string
		call    engine.HookCall
		want    bool
	}{
		{"Search(TODO*)", call("Search", map[string]any{"pattern": "TODO: later"}), true},
		{"Search(TODO*)", call("Search", map[string]any{"pattern": "FIXME"}), false},
		{"Web:search(*golang*)", call("Web", map[string]any{"action": "search", "query": "golang generics"}), true},
		{"Web:fetch(https://*.example.com/*)", call("Web", map[string]any{"action": "fetch", "url": "https://api.example.com/v1/x"}), true},
		{"Web:fetch(https://*.example.com/*)", call("Web", map[string]any{"action": "search", "url": "https://api.example.com/v1/x"}), false},
		{"Skill(deploy*)", call("Skill", map[string]any{"name": "deploy-prod"}), true},
		{"File:write(src/*.go)", call("File", map[string]any{"action": "write", "path": "src/a/b/c.go"}), true},
		{"File:write(src/*.go)", call("File", map[string]any{"action": "write", "path": "docs/c.go"}), false},
		{"Bash(ls*)", call("Bash", map[string]any{"command": "ls -la", "path": "zzz"}), true},
		{"Grep|Search(TODO*)", call("Grep", map[string]any{"pattern": "x"}), true},
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

// CONTRACT.md §17.4: sub-agents and tasks run only their session's tool hooks.
func TestContract174ChildrenRunOnlyToolHooks(t *testing.T) {
	t.Parallel()
	r, _ := runner(t,
		config.Hook{Event: engine.HookToolBefore, Command: "exit 2"},
		config.Hook{Event: engine.HookMessageSubmit, Command: "exit 2"},
		config.Hook{Event: engine.HookTurnEnd, Command: "true"},
		config.Hook{Event: engine.HookNotification, Command: "true"})
	child := Only(r, engine.HookToolBefore, engine.HookToolAfter)
	if child == nil || !child.Has(engine.HookToolBefore) || child.Has(engine.HookMessageSubmit) ||
		child.Has(engine.HookTurnEnd) || child.Has(engine.HookNotification) {
		t.Fatalf("child hooks %v", child)
	}
	if v := child.Run(context.Background(), engine.HookToolBefore, bashCall("ls")); !v.Block {
		t.Errorf("the session's tool hook must run for a child: %+v", v)
	}
	if v := child.Run(context.Background(), engine.HookMessageSubmit, engine.HookCall{Message: "x"}); v.Block {
		t.Errorf("a child ran a message hook: %+v", v)
	}
	child.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyTurnDone}, nil)
	r.Close()
	st, _ := r.List()
	for _, s := range st {
		if want := map[string]int{engine.HookToolBefore: 1}[s.Event]; s.Runs != want {
			t.Errorf("%s ran %d time(s), want %d", s.Event, s.Runs, want)
		}
	}
	if Only(nil, engine.HookToolBefore) != nil {
		t.Error("Only(nil) must be nil")
	}
	noTool, _ := runner(t, config.Hook{Event: engine.HookTurnEnd, Command: "true"})
	if Only(noTool, engine.HookToolBefore, engine.HookToolAfter) != nil {
		t.Error("a session without tool hooks must give its children none")
	}
}

// CONTRACT.md §17.4: without any hook configured the engine is given no Hooks (the runner says it has none);
// --no-hooks runs none.
// README.md "Hooks": --no-hooks runs none.
func TestContract174NothingConfigured(t *testing.T) {
	t.Parallel()
	r, _ := runner(t)
	if r.Configured() {
		t.Error("a session without hooks must report none configured")
	}
	off, err := New(Options{Use: Off, User: []config.Hook{{Event: engine.HookTurnEnd, Command: "true"}}, Workspace: t.TempDir()})
	if err != nil || off.Configured() || off.Has(engine.HookTurnEnd) {
		t.Errorf("--no-hooks: %v", err)
	}
}

// CONTRACT.md §17.4: a hook runs as `/bin/sh -c <command>` in the workspace, in its own process group.
func TestContract174ShellWorkspaceAndProcessGroup(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	out := filepath.Join(t.TempDir(), "seen")
	r, ws := runner(t, config.Hook{Event: engine.HookTurnEnd,
		Command: `{ echo "$0"; pwd -P; echo $$; cut -d' ' -f5 /proc/$$/stat; } > ` + out})
	if v := r.Run(context.Background(), engine.HookTurnEnd, engine.HookCall{}); len(v.Notices) != 0 {
		t.Fatalf("notices %q", v.Notices)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	real, _ := filepath.EvalSymlinks(ws)
	if len(lines) != 4 || lines[0] != "/bin/sh" || lines[1] != real || lines[2] != lines[3] {
		t.Errorf("shell, directory, pid and process group: %q (workspace %s)", lines, real)
	}
	if pid, _ := strconv.Atoi(lines[2]); pid == os.Getpid() {
		t.Error("the hook ran in the agent's process")
	}
}

// CONTRACT.md §17.4: the payload has turn_id, call_id and the result's content (up to 16 KiB), success, is_error,
// category and truncated.
func TestContract174PayloadToolResult(t *testing.T) {
	t.Parallel()
	call := bashCall("make")
	call.Result = &engine.ToolOutcome{Content: strings.Repeat("x", 20_000), IsError: true, Category: "timeout"}
	p, _ := seen(t, engine.HookToolAfter, call)
	res, _ := p["result"].(map[string]any)
	content, _ := res["content"].(string)
	if p["turn_id"] != "t1" || p["call_id"] != "c1" || len(content) != 16<<10 || res["truncated"] != true ||
		res["is_error"] != true || res["success"] != false || res["category"] != "timeout" {
		t.Errorf("payload: turn %v call %v result len %d %v", p["turn_id"], p["call_id"], len(content),
			map[string]any{"truncated": res["truncated"], "is_error": res["is_error"], "success": res["success"], "category": res["category"]})
	}
	call.Result = &engine.ToolOutcome{Content: "short", Success: true}
	p, _ = seen(t, engine.HookToolAfter, call)
	if res, _ := p["result"].(map[string]any); res["content"] != "short" || res["truncated"] != nil {
		t.Errorf("an uncut result: %v", res)
	}
}

// CONTRACT.md §17.4: the payload has message (message_submit), turn (status, steps, error) and notification (kind,
// text) as the event has them.
func TestContract174PayloadMessageTurnNotification(t *testing.T) {
	t.Parallel()
	p, ws := seen(t, engine.HookMessageSubmit, engine.HookCall{SessionID: "s9", TurnID: "t9", Message: "fix it"})
	if p["event"] != "message_submit" || p["message"] != "fix it" || p["session_id"] != "s9" || p["turn_id"] != "t9" ||
		p["workspace"] != ws || p["tool"] != nil || p["result"] != nil {
		t.Errorf("message_submit payload %v", p)
	}
	p, _ = seen(t, engine.HookTurnEnd, engine.HookCall{Turn: &engine.TurnComplete{Status: engine.TurnFailed, Steps: 3, Error: "boom"}})
	if turn, _ := p["turn"].(map[string]any); turn["status"] != "failed" || turn["steps"] != float64(3) || turn["error"] != "boom" ||
		p["message"] != nil {
		t.Errorf("turn_end payload %v", p)
	}
	out := filepath.Join(t.TempDir(), "n.json")
	r, _ := runner(t, config.Hook{Event: engine.HookNotification, Command: "cat > " + out})
	r.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyApprovalWaiting, Text: "approve Bash"}, nil)
	r.Close()
	data, _ := os.ReadFile(out)
	var n map[string]any
	if err := json.Unmarshal(data, &n); err != nil {
		t.Fatalf("notification payload %q: %v", data, err)
	}
	if note, _ := n["notification"].(map[string]any); note["kind"] != "approval_waiting" || note["text"] != "approve Bash" {
		t.Errorf("notification payload %s", data)
	}
}

// CONTRACT.md §17.4: the commands' environment (sandbox.Environ: credential-shaped variables only when
// [shell] env_passthrough names them) plus CODEWHALE_HOOK_EVENT and CODEWHALE_WORKSPACE.
// README.md "Hooks": a hook gets the commands' environment minus credential-shaped variables unless [shell] env_passthrough lets one through.
func TestContract174EnvironmentPassthroughAndWorkspace(t *testing.T) {
	t.Setenv("MY_SERVICE_TOKEN", "tok-passed-through")
	t.Setenv("OTHER_API_KEY", "sk-should-not-leak")
	ws := t.TempDir()
	out := filepath.Join(t.TempDir(), "env")
	sb := sandbox.New(sandbox.Policy{Mode: sandbox.FullAccess, Workspace: ws}, sandbox.Options{EnvPassthrough: []string{"MY_SERVICE_TOKEN"}})
	r, err := New(Options{Use: Trusted, Workspace: ws, Sandbox: sb, UserFile: "config.toml",
		User: []config.Hook{{Event: engine.HookTurnEnd, Command: "env > " + out}}})
	if err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), engine.HookTurnEnd, engine.HookCall{})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(data)
	for _, want := range []string{"\nMY_SERVICE_TOKEN=tok-passed-through\n", "\nCODEWHALE_WORKSPACE=" + ws + "\n",
		"\nCODEWHALE_HOOK_EVENT=turn_end\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q", strings.TrimSpace(want))
		}
	}
	if strings.Contains(env, "sk-should-not-leak") {
		t.Error("a credential not named in env_passthrough reached the hook")
	}
}

// CONTRACT.md §17.4: /hooks lists the hooks with their last result and run count.
// README.md "Hooks": /hooks lists the hooks with their last result.
func TestContract174DescribeShowsLastResultAndRunCount(t *testing.T) {
	t.Parallel()
	r, _ := runner(t, config.Hook{Name: "lint", Event: engine.HookToolAfter, Matcher: "Bash", Command: `echo '{"message":"2 warnings"}'`})
	for range 2 {
		r.Run(context.Background(), engine.HookToolAfter, bashCall("make"))
	}
	d := r.Describe()
	if !strings.Contains(d, "Hooks (1):") || !strings.Contains(d, "lint · tool_call_after · matcher Bash · timeout 10s · config.toml") ||
		!strings.Contains(d, "last: ") || !strings.Contains(d, "ok: 2 warnings") || !strings.Contains(d, "· 2 run(s)") {
		t.Errorf("describe:\n%s", d)
	}
}

// CONTRACT.md §17.4: a failure is a status `Hook <name> (<event>, <file>) <what happened>; the <call|message|turn>
// goes on as if it had not run.` — for a start failure, unreadable JSON and an unknown decision too.
// README.md "Hooks": a hook that fails is reported and skipped: the call, message or turn goes on as if it had not run.
func TestContract174FailureStatusNamesItsSubject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		event, cmd, want string
	}{
		{engine.HookTurnEnd, "exit 3", "Hook h (turn_end, config.toml) failed (exit 3); the turn goes on as if it had not run."},
		{engine.HookMessageSubmit, `echo '{"decision":"nope"}'`, `Hook h (message_submit, config.toml) answered an unknown decision "nope" (block, ask or allow); the message goes on as if it had not run.`},
		{engine.HookToolAfter, `echo '{"message":'`, "Hook h (tool_call_after, config.toml) printed JSON that could not be read ("},
		{engine.HookToolAfter, `echo '{"message":'`, "; the call goes on as if it had not run."},
	} {
		r, _ := runner(t, config.Hook{Name: "h", Event: tc.event, Command: tc.cmd})
		v := r.Run(context.Background(), tc.event, bashCall("ls"))
		if len(v.Notices) != 1 || !strings.Contains(v.Notices[0], tc.want) {
			t.Errorf("%s %s: notices %q, want %q", tc.event, tc.cmd, v.Notices, tc.want)
		}
	}
	// A hook that cannot start (its workspace is gone) is reported the same way.
	ws := filepath.Join(t.TempDir(), "gone")
	r, err := New(Options{Use: Trusted, UserFile: "config.toml", Workspace: ws,
		User: []config.Hook{{Name: "h", Event: engine.HookToolBefore, Command: "true"}}})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Run(context.Background(), engine.HookToolBefore, bashCall("ls"))
	if v.Block || len(v.Notices) != 1 || !strings.HasPrefix(v.Notices[0], "Hook h (tool_call_before, config.toml) could not start: ") ||
		!strings.HasSuffix(v.Notices[0], "; the call goes on as if it had not run.") {
		t.Errorf("start failure: %+v", v)
	}
}

// CONTRACT.md §17.4: stdout and stderr are kept to 64 KiB each — for a real hook whose output goes through a pipe. A
// JSON answer longer than that is cut, so it cannot be read; of a longer stderr only its first 64 KiB is kept, so
// the failure's tail is the tail of those, not what the hook printed last.
func TestContract174OutputIsKeptTo64KiB(t *testing.T) {
	t.Parallel()
	flood := `head -c 70000 /dev/zero | tr '\0' x`
	for _, tc := range []struct{ name, cmd, want, not string }{
		{"stdout", `printf '{"message":"'; ` + flood + `; printf '"}'`,
			"Hook stdout (tool_call_after, config.toml) printed JSON that could not be read (", ""},
		{"stderr", `{ ` + flood + `; for i in 1 2 3 4 5 6 7 8 9 10; do printf 'END-OF-STDERR '; done; } >&2; exit 1`,
			"Hook stderr (tool_call_after, config.toml) failed (exit 1): …xxx", "END-OF-STDERR"},
	} {
		r, _ := runner(t, config.Hook{Name: tc.name, Event: engine.HookToolAfter, Command: tc.cmd})
		v := r.Run(context.Background(), engine.HookToolAfter, bashCall("make"))
		if len(v.Notices) != 1 || !strings.Contains(v.Notices[0], tc.want) || tc.not != "" && strings.Contains(v.Notices[0], tc.not) {
			t.Errorf("%s over 64 KiB was kept whole: notices %.300q, message %d bytes", tc.name, v.Notices, len(v.Message))
		}
	}
	var c capped
	if n, err := io.Copy(&c, strings.NewReader(strings.Repeat("y", maxOutput+1000))); err != nil || n != maxOutput+1000 ||
		len(c.String()) != maxOutput {
		t.Errorf("io.Copy into capped: %d written, %d kept, %v", n, len(c.String()), err)
	}
}

// CONTRACT.md §17.4: a malformed hook is an error naming the file and the hook — by its name, when it has one, as well
// as its position.
func TestContract174MalformedHookIsNamed(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	file := writeProjectHooks(t, ws, "[[hooks]]\nevent = \"turn_end\"\ncommand = \"true\"\n\n"+
		"[[hooks]]\nname = \"lint-on-save\"\nevent = \"turn_end\"\nmatcher = \"Bash\"\ncommand = \"true\"\n")
	_, err := New(Options{Use: Trusted, Home: t.TempDir(), Workspace: ws})
	if err == nil || !strings.Contains(err.Error(), file+`: hooks[1] (name "lint-on-save"): matcher applies to`) {
		t.Fatalf("malformed named hook: %v", err)
	}
	_, err = New(Options{Use: Trusted, Workspace: ws, UserFile: "config.toml",
		User: []config.Hook{{Name: "guard", Event: engine.HookToolBefore, Command: "true", TimeoutMS: -5}}})
	if err == nil || !strings.Contains(err.Error(), `config.toml: hooks[0] (name "guard"): timeout_ms -5 is outside`) {
		t.Fatalf("malformed named user hook: %v", err)
	}
}

// CONTRACT.md §17.4: a session_start hook's failure is the same status, the session going on; a shell_env hook's says
// the commands run without its variables.
func TestContract174SessionHookFailureStatuses(t *testing.T) {
	t.Parallel()
	r, _ := runner(t,
		config.Hook{Name: "hello", Event: SessionStart, Command: "exit 4"},
		config.Hook{Name: "vars", Event: ShellEnv, Command: `echo '{"env":'`})
	if got := r.SessionStart(context.Background(), "s1"); !slices.Equal(got,
		[]string{"Hook hello (session_start, config.toml) failed (exit 4); the session goes on as if it had not run."}) {
		t.Errorf("session_start: %q", got)
	}
	env, got := r.ShellEnv(context.Background(), "s1")
	if len(env) != 0 || len(got) != 1 || !strings.HasPrefix(got[0], "Hook vars (shell_env, config.toml) printed JSON that could not be read (") ||
		!strings.HasSuffix(got[0], "; commands run without its variables.") {
		t.Errorf("shell_env: env %q, lines %q", env, got)
	}
}

// CONTRACT.md §17.4: a notification hook, run in the background, that fails is reported as a status: to the report
// its caller gives, or, without one, once, by Wait (at exit).
func TestContract174NotificationFailureIsReported(t *testing.T) {
	t.Parallel()
	r, _ := runner(t, config.Hook{Name: "bell", Event: engine.HookNotification, Command: "echo no bell >&2; exit 3"})
	want := []string{"Hook bell (notification, config.toml) failed (exit 3): no bell; the session goes on as if it had not run."}
	reported := make(chan []string, 1)
	r.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyApprovalWaiting}, func(n []string) { reported <- n })
	select {
	case got := <-reported:
		if !slices.Equal(got, want) {
			t.Errorf("reported %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the failure was not reported")
	}
	if got := r.Wait(); len(got) != 0 {
		t.Errorf("a reported failure was left for Wait: %q", got)
	}
	r.Go(engine.HookNotification, engine.HookCall{Kind: engine.NotifyTurnDone}, nil)
	if got := r.Wait(); !slices.Equal(got, want) {
		t.Errorf("Wait: %q", got)
	}
	if got := r.Wait(); len(got) != 0 {
		t.Errorf("a second Wait: %q", got)
	}
}
