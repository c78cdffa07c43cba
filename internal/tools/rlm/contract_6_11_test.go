package rlm

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// TestMain lets the test binary serve as the sandbox helper, as main does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// sandboxedEnv is newEnv with the kernel started as internal/app starts it:
// under the one OS sandbox, workspace-write over the scratch root with the
// read allow-list of sandbox.PrivateReads (the fake home's dotfiles and a
// hidden directory left out), with the sandbox's scrubbed environment.
func sandboxedEnv(t *testing.T, home, hidden string) *env {
	t.Helper()
	needPython(t)
	scratch := t.TempDir()
	ws := t.TempDir()
	policy := func(py Interpreter) sandbox.Policy {
		reads := sandbox.PrivateReads(home, []string{hidden}, append([]string{ws}, py.Dirs...)...)
		return sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: scratch, Reads: reads}
	}
	base := sandbox.New(policy(Interpreter{}), sandbox.Options{Helper: os.Args[0]})
	if !base.Status().Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available")
	}
	store := handles.NewStore(0)
	e := &env{t: t, store: store, ws: ws}
	e.tool = New(Options{Python: needPython(t), ScratchRoot: scratch, Handles: store, Env: base.Environ(),
		Start: func(cmd *exec.Cmd, py Interpreter) (func() error, error) {
			p, err := base.WithPolicy(policy(py)).Start(cmd)
			if err != nil {
				return nil, err
			}
			return p.Wait, nil
		}})
	t.Cleanup(e.tool.Close)
	return e
}

// CONTRACT.md §6.11: the kernel gets the scrubbed environment Bash gets: a credential-shaped variable of the
// agent's (DEEPSEEK_*, *_API_KEY, *_TOKEN, CODEWHALE_*) never reaches it, even with the fence switched off; a
// passthrough the person configured does.
// README.md "rlm: Python over big content": the kernel gets the environment Bash gets.
func TestContract611KernelEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-rlm-0000")
	t.Setenv("GH_TOKEN", "gh-canary-rlm")
	t.Setenv("OPENAI_API_KEY", "sk-openai-canary")
	t.Setenv("CODEWHALE_HOME", "/canary/home")
	t.Setenv("RLM_PASSED", "kept")
	needPython(t)
	sb := sandbox.New(sandbox.Policy{Mode: sandbox.FullAccess}, sandbox.Options{EnvPassthrough: []string{"GH_TOKEN"}})
	for name, opts := range map[string]Options{"the sandbox's environment": {Env: sb.Environ()}, "no environment given": {}} {
		opts.Python, opts.ScratchRoot, opts.Handles = needPython(t), t.TempDir(), handles.NewStore(0)
		e := &env{t: t, store: opts.Handles, ws: t.TempDir(), tool: New(opts)}
		t.Cleanup(e.tool.Close)
		e.must(`{"action":"open","name":"s","content":"x"}`)
		out := e.must(`{"action":"eval","name":"s","code":"sub_query.__globals__['_armed'] = False\nimport os\nnames = ['DEEPSEEK_API_KEY', 'GH_TOKEN', 'OPENAI_API_KEY', 'CODEWHALE_HOME', 'RLM_PASSED']\nprint([os.environ.get(n, '-') for n in names], any('canary' in v and k not in names for k, v in os.environ.items()))"}`)
		got, _ := out["stdout"].(string)
		if strings.Contains(got, "True") {
			t.Errorf("%s: a canary reached the kernel under another name: %s", name, got)
		}
		for _, canary := range []string{"sk-canary-rlm-0000", "sk-openai-canary", "/canary/home"} {
			if strings.Contains(got, canary) {
				t.Errorf("%s: %q reached the kernel: %s", name, canary, got)
			}
		}
		if opts.Env != nil && got != "['-', 'gh-canary-rlm', '-', '-', 'kept'] False\n" {
			t.Errorf("%s: the passthrough or an ordinary variable is missing: %s", name, got)
		}
	}
}

// CONTRACT.md §6.11: the boundary is the OS sandbox, not the audit hook: with the hook switched off the kernel still
// writes only its scratch directory (not the workspace, not a directory outside) and cannot read the user's dotfiles
// or a hidden directory ($CODEWHALE_HOME), while its scratch directory and the workspace stay usable.
// README.md "rlm: Python over big content": the OS sandbox is the boundary: with the audit hook off, dotfiles and $CODEWHALE_HOME stay unreadable and only the scratch directory is writable.
func TestContract611OSSandboxHoldsWithTheHookOff(t *testing.T) {
	t.Parallel()
	home, hidden, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for path, body := range map[string]string{filepath.Join(home, ".ssh", "id_rsa"): "not-a-real-key-canary\n",
		filepath.Join(hidden, "config.toml"): "api_key = 'hidden-canary'\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := sandboxedEnv(t, home, hidden)
	if err := os.WriteFile(filepath.Join(e.ws, "data.txt"), []byte("workspace data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.must(`{"action":"open","name":"s","content":"x"}`)
	off := "sub_query.__globals__['_armed'] = False\n"
	probe := func(code string) string {
		in, _ := json.Marshal(map[string]any{"action": "eval", "name": "s", "code": off + code})
		out := e.must(string(in))
		s, _ := out["stdout"].(string)
		return strings.TrimSpace(s)
	}
	try := func(expr string) string {
		return fmt.Sprintf("try:\n    %s\n    print('ALLOWED')\nexcept Exception as ex:\n    print('REFUSED', type(ex).__name__)", expr)
	}
	for what, expr := range map[string]string{
		"a write outside":          fmt.Sprintf("open(%q, 'w').write('pwned')", filepath.Join(outside, "new.txt")),
		"a write in the workspace": fmt.Sprintf("open(%q, 'w').write('pwned')", filepath.Join(e.ws, "new.txt")),
		"a dotfile read":           fmt.Sprintf("print(open(%q).read())", filepath.Join(home, ".ssh", "id_rsa")),
		"a hidden directory read":  fmt.Sprintf("print(open(%q).read())", filepath.Join(hidden, "config.toml")),
	} {
		if got := probe(try(expr)); !strings.HasPrefix(got, "REFUSED") || strings.Contains(got, "canary") {
			t.Errorf("%s with the hook off: %q", what, got)
		}
	}
	if got := probe(try("open('notes.txt', 'w').write('ok')")); got != "ALLOWED" {
		t.Errorf("the scratch directory is not writable: %q", got)
	}
	if got := probe(fmt.Sprintf("print(open(%q).read())", filepath.Join(e.ws, "data.txt"))); got != "workspace data" {
		t.Errorf("the workspace is not readable: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the outside directory gained files: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("the kernel wrote into the workspace: %v", err)
	}
}

// CONTRACT.md §6.11: an eval's timeout_ms is its limit (the kernel is interrupted and kept) and is at most
// 600000; a timeout_ms below 1 is refused.
// README.md "rlm: Python over big content": an eval's time limit is 60 s by default.
func TestContract611EvalTimeoutBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	out := e.must(`{"action":"eval","name":"s","code":"import time\ntime.sleep(30)","timeout_ms":300}`)
	if out["status"] != "timeout" {
		t.Fatalf("a 300 ms eval of a 30 s sleep: %v", out)
	}
	if _, _, err := e.call(`{"action":"eval","name":"s","code":"1","timeout_ms":0}`); err == nil {
		t.Error("timeout_ms 0 was accepted")
	}
	if out := e.must(`{"action":"eval","name":"s","code":"print('kept')","timeout_ms":99999999}`); out["stdout"] != "kept\n" {
		t.Errorf("after the timeout the kernel is gone, or a huge timeout_ms is refused: %v", out)
	}
	if maxEvalTimeout.Milliseconds() != 600000 || defaultEvalTimeout.Milliseconds() != 60000 {
		t.Errorf("eval timeouts: default %v, max %v", defaultEvalTimeout, maxEvalTimeout)
	}
}
