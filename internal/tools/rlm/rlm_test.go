package rlm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

func needPython(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		e2e.Missing(t, "python3 is not installed")
	}
	return p
}

type env struct {
	t     *testing.T
	tool  *Tool
	store *handles.Store
	ws    string
}

func newEnv(t *testing.T, q Querier) *env {
	t.Helper()
	store := handles.NewStore(0)
	e := &env{t: t, store: store, ws: t.TempDir()}
	e.tool = New(Options{Python: needPython(t), ScratchRoot: t.TempDir(), Query: q, Handles: store,
		Sources: []handles.Source{store}, Transcript: func() string { return "[user] hello\n[assistant] hi" }})
	t.Cleanup(e.tool.Close)
	return e
}

func (e *env) call(in string) (map[string]any, tools.Result, error) {
	e.t.Helper()
	return e.callCtx(context.Background(), in)
}

func (e *env) callCtx(ctx context.Context, in string) (map[string]any, tools.Result, error) {
	e.t.Helper()
	reg := tools.NewRegistry()
	reg.Register(e.tool)
	c, err := reg.Prepare(ToolName, json.RawMessage(in))
	if err != nil {
		return nil, tools.Result{}, err
	}
	res, err := c.Run(ctx, &tools.Context{Workspace: e.ws})
	if err != nil {
		return nil, res, err
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		e.t.Fatalf("not JSON: %s", res.Content)
	}
	return out, res, nil
}

func (e *env) must(in string) map[string]any {
	e.t.Helper()
	out, _, err := e.call(in)
	if err != nil {
		e.t.Fatalf("%s: %v", in, err)
	}
	return out
}

func (e *env) handleText(v any) string {
	e.t.Helper()
	h, ok := v.(map[string]any)
	if !ok {
		e.t.Fatalf("not a handle: %v", v)
	}
	text, ok := e.store.Get(h["session_id"].(string), h["name"].(string))
	if !ok {
		e.t.Fatalf("handle %v not in the store", h)
	}
	return text
}

// README.md "rlm: Python over big content": open binds a 50 MB file as content and returns only its length, a preview and its SHA-256; eval runs code against it.
func TestOpenLargeFileAndEval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	big := strings.Repeat("0123456789abcdef", 50<<20/16) // 50 MiB
	if err := os.WriteFile(filepath.Join(e.ws, "big.log"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	// How long this takes is BenchmarkOpen50MB's (docs/PERFORMANCE.md), not
	// a timed test's: on a loaded machine any bound here flakes.
	out := e.must(`{"action":"open","name":"log","file_path":"big.log"}`)
	if out["length"] != float64(50<<20) || len(out) != 4 || !strings.HasPrefix(out["preview"].(string), "0123456789abcdef") {
		t.Fatalf("open result %v", out)
	}
	if _, ok := out["sha256"].(string); !ok {
		t.Error("no sha256")
	}
	out = e.must(`{"action":"eval","name":"log","code":"print(len(content))"}`)
	if out["stdout"] != "52428800\n" || out["status"] != "ok" {
		t.Fatalf("eval %v", out)
	}
}

// README.md "rlm: Python over big content": FINAL(value) and long output come back as handles.
func TestFinalAndLongOutputAreHandles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"alpha beta gamma"}`)
	out := e.must(`{"action":"eval","name":"s","code":"words = content.split()\nprint('x' * 5000)\nFINAL({'count': len(words), 'first': words[0]})"}`)
	if got := e.handleText(out["final"]); got != `{"count": 3, "first": "alpha"}` {
		t.Errorf("final %q", got)
	}
	if got := e.handleText(out["stdout_handle"]); got != strings.Repeat("x", 5000)+"\n" {
		t.Errorf("stdout handle %d chars", len(got))
	}
	if _, inline := out["stdout"]; inline {
		t.Error("5000 characters came inline")
	}
	// The last expression's value is shown, like a REPL.
	if out := e.must(`{"action":"eval","name":"s","code":"len(words)"}`); out["stdout"] != "3\n" {
		t.Errorf("expression value %v", out)
	}
}

func TestExceptionIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	out, res, err := e.call(`{"action":"eval","name":"s","code":"def f(n):\n    return f(n+1) if n < 50 else 1/0\nf(0)"}`)
	if err != nil || res.Success {
		t.Fatalf("%v %+v", err, res)
	}
	ex := out["error"].(map[string]any)
	if out["status"] != "error" || ex["type"] != "ZeroDivisionError" || !strings.Contains(ex["traceback"].(string), "ZeroDivisionError") ||
		len(ex["traceback"].(string)) > 2100 {
		t.Fatalf("%v", out)
	}
}

// README.md "rlm: Python over big content": an eval is stopped at its time limit without losing the session.
func TestInfiniteLoopHitsTheLimitAndTheKernelSurvives(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	e.must(`{"action":"eval","name":"s","code":"kept = 41"}`)
	start := time.Now()
	out := e.must(`{"action":"eval","name":"s","code":"while True:\n    pass","timeout_ms":500}`)
	if out["status"] != "timeout" || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s", out, time.Since(start))
	}
	if out := e.must(`{"action":"eval","name":"s","code":"print(kept + 1)"}`); out["stdout"] != "42\n" {
		t.Fatalf("kernel state lost: %v", out)
	}
}

// README.md "rlm: Python over big content": Esc (cancel) stops an eval without losing the session.
func TestCancelInterruptsTheEval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out, _, err := e.callCtx(ctx, `{"action":"eval","name":"s","code":"import time\nwhile True:\n    time.sleep(0.01)"}`)
	if err != nil || out["status"] != "interrupted" {
		t.Fatalf("%v %v", err, out)
	}
	if out := e.must(`{"action":"eval","name":"s","code":"print('alive')"}`); out["stdout"] != "alive\n" {
		t.Fatalf("%v", out)
	}
}

// CONTRACT.md §6.11: a dead kernel is replaced and the result says restarted.
// README.md "rlm: Python over big content": a kernel that dies is restarted on the next call, which says what was lost.
func TestKilledKernelIsRestarted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"twelve chars"}`)
	out := e.must(`{"action":"eval","name":"s","code":"import os\nv = 7\nprint(os.getpid())"}`)
	var pid int
	fmt.Sscan(out["stdout"].(string), &pid)
	proc, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	s, _ := e.tool.get("s", false)
	<-s.k.dead
	out = e.must(`{"action":"eval","name":"s","code":"print(len(content), 'v' in dir())"}`)
	if out["stdout"] != "12 False\n" || !strings.Contains(out["restarted"].(string), "every variable and import from earlier evals is gone") {
		t.Fatalf("%v", out)
	}
}

// CONTRACT.md §6.11: the kernel cannot write outside its scratch directory, reach the network or start a
// process (fork, os.system, subprocess), and its own scratch directory stays writable.
// README.md "rlm: Python over big content": the kernel has no network, starts no process and writes only its scratch directory.
func TestSandboxRefusesEscapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	outside := filepath.Join(t.TempDir(), "canary")
	cases := map[string]string{
		"write outside": fmt.Sprintf("open(%q, 'w').write('x')", outside),
		"os.open write": fmt.Sprintf("import os\nos.open(%q, os.O_WRONLY|os.O_CREAT)", outside),
		"remove":        fmt.Sprintf("import os\nos.remove(%q)", outside),
		"connect":       "import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 9))",
		"dns":           "import socket\nsocket.getaddrinfo('example.com', 80)",
		"os.system":     "import os\nos.system('curl http://example.com > /tmp/x')",
		"subprocess":    "import subprocess\nsubprocess.run(['true'])",
		"ctypes":        "import ctypes",
		"urllib":        "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9')",
		"posix.system":  "import posix\nposix.system('true')",
		"fork":          "import os\nos.fork()",
	}
	for name, code := range cases {
		in, _ := json.Marshal(map[string]any{"action": "eval", "name": "s", "code": code})
		out := e.must(string(in))
		ex, _ := out["error"].(map[string]any)
		if out["status"] != "error" || !strings.Contains(fmt.Sprint(ex["message"]), "rlm sandbox") {
			t.Errorf("%s was not refused: %v", name, out)
		}
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the scratch dir: %v", err)
	}
	// Its own scratch directory is writable.
	out := e.must(`{"action":"eval","name":"s","code":"open('notes.txt','w').write('ok')\nprint(open('notes.txt').read())"}`)
	if out["stdout"] != "ok\n" {
		t.Errorf("scratch write: %v", out)
	}
}

// fakeChild answers child queries after a delay and records how many ran at
// once.
type fakeChild struct {
	delay         time.Duration
	running, peak atomic.Int32
	calls         atomic.Int32
}

func (f *fakeChild) query(ctx context.Context, _, user string) (string, provider.Usage, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	f.calls.Add(1)
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return "", provider.Usage{}, ctx.Err()
	}
	slice := user[strings.Index(user, "<text>\n")+7:]
	slice = slice[:strings.Index(slice, "\n</text>")]
	return "answer for " + slice, provider.Usage{InputTokens: 10, OutputTokens: 2}, nil
}

// CONTRACT.md §6.11: sub_query_batch runs up to 16 children at once in slot order, counts their tokens, and gives the
// exact too-large, dependency_mode and empty answers.
// README.md "rlm: Python over big content": sub_query_batch runs up to 16 slices at once and its tokens are counted.
func TestSubQueryBatch(t *testing.T) {
	t.Parallel()
	child := &fakeChild{delay: 300 * time.Millisecond}
	e := newEnv(t, child.query)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	start := time.Now()
	out, res, err := e.call(`{"action":"eval","name":"s","code":"r = sub_query_batch('summarise', ['part%d' % i for i in range(16)])\nprint(r[0]); print(r[15]); print(len(r))"}`)
	took := time.Since(start)
	if err != nil || out["stdout"] != "answer for part0\nanswer for part15\n16\n" {
		t.Fatalf("%v %v", err, out)
	}
	if child.peak.Load() != 16 {
		t.Errorf("%d children ran at once, want 16", child.peak.Load())
	}
	if took > 3*time.Second {
		t.Errorf("a 16-slice batch of 300 ms children took %s", took)
	}
	if res.ChildUsage.InputTokens != 160 || res.ChildUsage.OutputTokens != 32 || out["child_queries"] != float64(1) {
		t.Errorf("usage %+v queries %v", res.ChildUsage, out["child_queries"])
	}
	for code, want := range map[string]string{
		"print(sub_query_batch('p', ['s'] * 17)[16])":                           "batch too large: 17 > 16\n",
		"print(sub_query_batch('p', ['a', 'b'], dependency_mode='chained')[1])": depModeRefusal + "\n",
		"print(sub_query_batch('p', []))":                                       "[]\n",
		"print(sub_query('what is it?', 'solo'))":                               "answer for solo\n",
		"print(sub_query_map('p', ['m%d' % i for i in range(20)])[19])":         "answer for m19\n",
	} {
		in, _ := json.Marshal(map[string]any{"action": "eval", "name": "s", "code": code})
		if out := e.must(string(in)); out["stdout"] != want {
			t.Errorf("%s: %v", code, out)
		}
	}
}

func TestSubRLMDepthCap(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var systems []string
	q := func(_ context.Context, system, user string) (string, provider.Usage, error) {
		mu.Lock()
		systems = append(systems, system)
		mu.Unlock()
		if system == subRLMSystem {
			return "```python\nFINAL(len(content))\n```", provider.Usage{InputTokens: 5}, nil
		}
		return "plain", provider.Usage{}, nil
	}
	e := newEnv(t, q)
	e.must(`{"action":"open","name":"s","content":"x"}`)
	if out := e.must(`{"action":"eval","name":"s","code":"print(sub_rlm('count it', 'abcdef'))"}`); out["stdout"] != "6\n" {
		t.Fatalf("sub_rlm: %v", out)
	}
	e.must(`{"action":"configure","name":"s","sub_rlm_max_depth":0}`)
	out := e.must(`{"action":"eval","name":"s","code":"sub_rlm('count it', 'abc')"}`)
	if ex, _ := out["error"].(map[string]any); !strings.Contains(fmt.Sprint(ex["message"]), "sub_rlm depth cap reached") {
		t.Fatalf("depth cap: %v", out)
	}
}

// CONTRACT.md §6.11: the exact missing/invalid action texts, open's exactly-one-source rule and boundary, eval
// Required, open/close/session_objects Auto.
// README.md "rlm: Python over big content": eval needs approval, open, close and session_objects do not.
func TestFamilyErrorsAndApprovals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for in, want := range map[string]string{
		`{"name":"log"}`:   "rlm: missing `action` (one of: session_objects, open, eval, configure, close)",
		`{"action":"run"}`: "rlm: invalid action `run` (one of: session_objects, open, eval, configure, close)",
		`{"action":"open","name":"s","path":"a.txt"}`:                 "`path` is not one of them",
		`{"action":"open","name":"s","prompt":"x"}`:                   "`prompt` is not one of them",
		`{"action":"open","name":"s","content":"a","file_path":"b"}`:  "exactly one of file_path, content, url or session_object (got: file_path, content)",
		`{"action":"eval","name":"nope","code":"1"}`:                  `no session "nope" is open`,
		`{"action":"open","name":"s","file_path":"../../etc/passwd"}`: "Path escapes workspace",
		`{"action":"open","name":"s","session_object":"web:99"}`:      "handle web:99 () is no longer held",
		`{"action":"open","name":"s","session_object":"nothing:1"}`:   `no session object "nothing:1"`,
		`{"action":"open","name":"s","bogus":1}`:                      "rlm open does not take `bogus`; nothing was run.",
	} {
		_, _, err := e.call(in)
		if err == nil || !strings.Contains(tools.AsError(err).Render(ToolName), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]tools.Approval{
		`{"action":"eval","name":"s","code":"1"}`: tools.Required, `{"action":"open","name":"s","content":"x"}`: tools.Auto,
		`{"action":"close","name":"s"}`: tools.Auto, `{"action":"session_objects"}`: tools.Auto,
	} {
		c, err := e.tool.Prepare(json.RawMessage(in))
		if err != nil || c.Policy.Approval != want || c.Policy.ReadOnly != strings.Contains(in, "session_objects") {
			t.Errorf("%s: %+v %v", in, c, err)
		}
	}
	big := strings.Repeat("x", maxContentChars+1)
	in, _ := json.Marshal(map[string]any{"action": "open", "name": "s", "content": big})
	if _, _, err := e.call(string(in)); err == nil || !strings.Contains(err.Error(), "at most 200000 may be passed inline") {
		t.Errorf("big content: %v", err)
	}
}

func TestSessionObjectsAndClose(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	h := e.store.Put("web", "content", "page", "<a fetched page>")
	out := e.must(`{"action":"session_objects"}`)
	objs, _ := json.Marshal(out["objects"])
	if !strings.Contains(string(objs), `"session_object":"transcript"`) || !strings.Contains(string(objs), h.SessionID) {
		t.Fatalf("%s", objs)
	}
	e.must(`{"action":"open","name":"page","session_object":"` + h.SessionID + `"}`)
	if out := e.must(`{"action":"eval","name":"page","code":"print(content)"}`); out["stdout"] != "<a fetched page>\n" {
		t.Fatalf("%v", out)
	}
	e.must(`{"action":"open","name":"tr","session_object":"transcript"}`)
	out = e.must(`{"action":"close","name":"page"}`)
	if out["closed"] != true || out["evals"] != float64(1) {
		t.Fatalf("%v", out)
	}
	if _, _, err := e.call(`{"action":"eval","name":"page","code":"1"}`); err == nil {
		t.Error("a closed session still evaluates")
	}
}

func TestSecretsAreNotOpened(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	os.WriteFile(filepath.Join(e.ws, ".env"), []byte("API_TOKEN=secret"), 0o600)
	if _, _, err := e.call(`{"action":"open","name":"s","file_path":".env"}`); err == nil || !strings.Contains(err.Error(), "is a secret") {
		t.Errorf("got %v", err)
	}
}
