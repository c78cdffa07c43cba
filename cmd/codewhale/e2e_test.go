package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// binary is the codewhale binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codewhale-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "codewhale")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building codewhale:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the built binary in a fresh home and workspace against srv.
type cli struct {
	t        *testing.T
	home, ws string
	env      []string
	srv      *fakemodel.Server
}

func newCLI(t *testing.T, srv *fakemodel.Server) *cli {
	t.Helper()
	c := &cli{t: t, home: t.TempDir(), ws: t.TempDir(), srv: srv}
	c.env = []string{"HOME=" + c.home, "PATH=" + os.Getenv("PATH"), "CODEWHALE_HOME=" + filepath.Join(c.home, ".codewhale")}
	// Tools the model runs (go test) keep using the real Go caches.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN"} {
		if v := goEnv(k); v != "" {
			c.env = append(c.env, k+"="+v)
		}
	}
	if srv != nil {
		c.env = append(c.env, "CODEWHALE_BASE_URL="+srv.URL)
	}
	// Fast retries so failure paths finish quickly.
	c.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	return c
}

// goEnv reads one `go env` value (the caches live under the real HOME).
func goEnv(k string) string {
	out, err := exec.Command("go", "env", k).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (c *cli) config(body string) {
	c.t.Helper()
	dir := filepath.Join(c.home, ".codewhale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(body), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cli) command(args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = c.ws, c.env
	return cmd
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	cmd := c.command(args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// lines decodes stream-json output, checking every line's schema tail.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if m["schema_version"] != 1.0 || m["schema"] != "codewhale.exec-stream" {
			t.Errorf("schema tail missing: %s", l)
		}
		if !strings.HasPrefix(l, `{"type":`) || !strings.HasSuffix(l, `"schema_version":1,"schema":"codewhale.exec-stream"}`) {
			t.Errorf("key order: %s", l)
		}
		evs = append(evs, m)
	}
	return evs
}

func types(evs []map[string]any) string {
	var out []string
	for _, e := range evs {
		out = append(out, e["type"].(string))
	}
	return strings.Join(out, ",")
}

// README.md "Command line": exec is one non-streaming request, no tools, max_tokens 4096.
func TestExecOneShot(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Paris."), fakemodel.Text("Lyon."))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "capital of France?")
	if code != 0 || out != "Paris.\n" {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
	req := srv.Requests()[0]
	if _, ok := req.Body["tools"]; ok || req.Body["max_tokens"] != 4096.0 || len(req.Messages()) != 1 {
		t.Errorf("one-shot request %s", req.Raw)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("loopback must not need a key")
	}
	out, _, code = c.run("exec", "--json", "another?")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m["mode"] != "one-shot" || m["output"] != "Lyon." || m["success"] != true {
		t.Errorf("--json: %d %s", code, out)
	}
}

func TestExecAgentStreamJSON(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Reply{Reasoning: "I should load the planner.", Calls: []fakemodel.Call{{ID: "s", Name: "tool_search", Args: `{"query":"update_plan"}`}},
			Usage: &fakemodel.Usage{Prompt: 1200, Completion: 40, CacheHit: 1024, CacheMiss: 176, Reasoning: 12}},
		fakemodel.Tools(fakemodel.Call{ID: "p", Name: "update_plan", Args: `{"objective":"ship it"}`}),
		fakemodel.Text("Done."))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "plan the work")
	if code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	evs := lines(t, out)
	want := "tool_use,turn_usage,tool_result,tool_use,turn_usage,tool_result,content,content,turn_usage,session_capture,metadata,done"
	if got := types(evs); got != want {
		t.Errorf("types:\n got %s\nwant %s", got, want)
	}
	for _, e := range evs {
		if e["type"] == "content" && strings.Contains(fmt.Sprint(e), "load the planner") {
			t.Error("reasoning leaked into stream-json")
		}
	}
	usage := evs[1]
	if usage["turn"] != 1.0 || usage["prompt_cache_hit_tokens"] != 1024.0 || usage["reasoning_tokens"] != 12.0 {
		t.Errorf("turn_usage %v", usage)
	}
	res := evs[5]
	if res["status"] != "success" || !strings.HasPrefix(res["output"].(string), "Plan updated:") || res["side_effect_status"] != "completed" {
		t.Errorf("tool_result %v", res)
	}
	meta := evs[len(evs)-2]["meta"].(map[string]any)
	if meta["status"] != "completed" || meta["termination_reason"] != "resolved" || meta["approval_posture"] != "auto_tools" ||
		meta["visible_final_answer_chars"] != 5.0 || !strings.HasPrefix(meta["prompt_sha256"].(string), "sha256:") {
		t.Errorf("metadata %v", meta)
	}
	first, second := srv.Requests()[0].ToolNames(), srv.Requests()[1].ToolNames()
	if strings.Join(second, ",") != strings.Join(append(first, "update_plan"), ",") {
		t.Errorf("the loaded tool must join at the tail: first %v, second %v", first, second)
	}
	for _, n := range first {
		if n == "update_plan" {
			t.Error("update_plan sent before it was loaded")
		}
	}
	if meta["tool_catalog_sha256"] == nil {
		t.Error("metadata lacks the catalog digest")
	}
}

// The digest `codewhale tools --json` prints is the digest of the tools the
// first request really carries.
// CONTRACT.md §13.5: codewhale tools reports the names and digest the first request really carries.
func TestToolsReceiptDigestMatchesFirstRequest(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c := newCLI(t, srv)
	out, _, code := c.run("tools", "--json")
	var rec struct {
		Active []string `json:"active"`
		Digest string   `json:"active_tool_catalog_sha256"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Digest == "" {
		t.Fatalf("tools --json: %d %s", code, out)
	}
	out, _, code = c.run("exec", "--auto", "--output-format", "stream-json", "hi")
	evs := lines(t, out)
	meta := evs[len(evs)-2]["meta"].(map[string]any)
	if code != 0 || meta["tool_catalog_sha256"] != rec.Digest {
		t.Errorf("exec digest %v != tools digest %s", meta["tool_catalog_sha256"], rec.Digest)
	}
	if got := strings.Join(srv.Requests()[0].ToolNames(), ","); got != strings.Join(rec.Active, ",") {
		t.Errorf("first request tools %s, receipt %v", got, rec.Active)
	}
}

// `codewhale tools` reports the surface request 1 really carries under strict
// mode and the allow/deny lists: its digest equals exec's metadata and the
// digest of the tools the model server received.
// CONTRACT.md §13.5: strict mode and the allow/deny lists are applied as at step 0 and the digest equals the first
// request's.
func TestToolsReceiptMatchesFirstRequestUnderStrictModeAndLists(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		strict bool
		args   []string
	}{
		{"strict", true, nil},
		{"allowed", false, []string{"--allowed-tools", "File,Git*,tool_search"}},
		{"disallowed", false, []string{"--disallowed-tools", "Bash,run"}},
		{"strict and allowed", true, []string{"--allowed-tools", "File,work_*"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakemodel.New(t, fakemodel.Text("ok"))
			c := newCLI(t, srv)
			if tc.strict {
				c.config("strict_tool_mode = true\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
			}
			active, digest := receiptOf(t, c, tc.args...)
			out, errOut, code := c.run(append(append([]string{"exec", "--auto", "--output-format", "stream-json"}, tc.args...), "hi")...)
			if code != 0 {
				t.Fatalf("exec: %d %s", code, errOut)
			}
			evs := lines(t, out)
			meta := evs[len(evs)-2]["meta"].(map[string]any)
			first := srv.Requests()[0]
			if meta["tool_catalog_sha256"] != digest || wireDigest(t, first) != digest {
				t.Errorf("receipt digest %s, exec metadata %v, request 1 %s", digest, meta["tool_catalog_sha256"], wireDigest(t, first))
			}
			if got := strings.Join(first.ToolNames(), ","); got != strings.Join(active, ",") {
				t.Errorf("request 1 tools %s, receipt %v", got, active)
			}
			if tc.args != nil && len(active) >= 8 {
				t.Errorf("the lists did not narrow the receipt: %v", active)
			}
			if tc.name == "strict" {
				plainActive, d := receiptOf(t, newCLI(t, nil))
				if d == digest || strings.Join(plainActive, ",") != strings.Join(active, ",") {
					t.Errorf("strict mode must change the schemas (and so the digest), not the names: %s vs %s", d, digest)
				}
			}
		})
	}
}

// wireDigest is the catalog digest of the tools a request carried on the
// wire (name, description, parameters: what the digest covers).
func wireDigest(t *testing.T, r *fakemodel.Request) string {
	t.Helper()
	raw, _ := r.Body["tools"].([]any)
	ts := make([]provider.Tool, 0, len(raw))
	for _, x := range raw {
		fn, _ := x.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		desc, _ := fn["description"].(string)
		params, _ := fn["parameters"].(map[string]any)
		ts = append(ts, provider.Tool{Name: provider.DecodeToolName(name), Description: desc, InputSchema: params})
	}
	d, ok := engine.ActiveToolCatalogSHA256(ts)
	if !ok {
		t.Fatal("no digest for the wire tools")
	}
	return d
}

func TestExecTextAndJSONOutput(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{Name: "nope_tool", Args: `{}`}), fakemodel.Text("All good."),
		fakemodel.Tools(fakemodel.Call{Name: "tool_search", Args: `{"query":"update_plan"}`}), fakemodel.Text("Second."))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--auto", "go")
	if code != 0 || out != "All good.\n" {
		t.Errorf("stdout %q code %d", out, code)
	}
	if !strings.Contains(errOut, "tool: nope_tool (nope_tool)") || !strings.Contains(errOut, "tool nope_tool failed: Error: tool 'nope_tool' is not registered") {
		t.Errorf("stderr %q", errOut)
	}
	out, _, code = c.run("exec", "--auto", "--json", "again")
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("%d %s", code, out)
	}
	tools := m["tools"].([]any)
	if m["mode"] != "agent" || m["output"] != "Second." || m["status"] != "completed" || len(tools) != 1 ||
		tools[0].(map[string]any)["name"] != "tool_search" {
		t.Errorf("json %v", m)
	}
}

// CONTRACT.md §13.4: a 401, a missing key and a bad config exit 1; a 503 still failing after the retries exits 75.
func TestExecExitCodes(t *testing.T) {
	t.Parallel()
	unauthorized := fakemodel.New(t, fakemodel.Reply{Status: 401, Body: `{"error":{"message":"Authentication Fails"}}`})
	_, errOut, code := newCLI(t, unauthorized).run("exec", "--auto", "hi")
	if code != 1 || !strings.Contains(errOut, "Set a valid key with `codewhale auth set --provider deepseek`") {
		t.Errorf("401: code %d %q", code, errOut)
	}
	down := fakemodel.New(t)
	down.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Status: 503, Body: "busy"} })
	_, errOut, code = newCLI(t, down).run("exec", "--auto", "hi")
	if code != 75 {
		t.Errorf("503 after retries: code %d %q", code, errOut)
	}
	if n := len(down.Requests()); n != 4 {
		t.Errorf("%d attempts", n)
	}
	c := newCLI(t, nil)
	c.env = append(c.env, "DEEPSEEK_API_KEY=")
	_, errOut, code = c.run("exec", "--auto", "hi")
	if code != 1 || !strings.Contains(errOut, "DeepSeek API key not found.") || !strings.Contains(errOut, "export DEEPSEEK_API_KEY=<your-key>") {
		t.Errorf("no key: code %d %q", code, errOut)
	}
	bad := newCLI(t, nil)
	bad.config("modle = \"x\"\n")
	_, errOut, code = bad.run("tools")
	if code != 1 || !strings.Contains(errOut, `line 1: unknown key "modle" (did you mean "model"?)`) {
		t.Errorf("bad config: %d %q", code, errOut)
	}
}

// CONTRACT.md §13.4: Ctrl+C (SIGINT) during exec exits 130.
func TestExecInterruptExits130(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: strings.Repeat("slow ", 400), Chunk: 5, Delay: 20 * time.Millisecond})
	c := newCLI(t, srv)
	cmd := c.command("exec", "--auto", "--output-format", "stream-json", "long")
	var out bytes.Buffer
	cmd.Stdout = &out
	pr, pw, _ := os.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	// Wait for streamed content, then interrupt.
	buf := make([]byte, 4096)
	n, _ := pr.Read(buf)
	out.Write(buf[:n])
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := readAll(pr)
	out.Write(rest)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, output %s", err, out.String())
	}
	evs := lines(t, out.String())
	meta := evs[len(evs)-2]["meta"].(map[string]any)
	if meta["status"] != "interrupted" || meta["termination_reason"] != "canceled" {
		t.Errorf("metadata %v", meta)
	}
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

func TestExecRunsShellAndReportsRunningJobs(t *testing.T) {
	t.Parallel()
	// A duration no other process on the machine uses, so the orphan check
	// below finds only this test's sleeper.
	sleeper := fmt.Sprintf("sleep 30.%06d", os.Getpid()%1000000)
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "a", Name: "Bash", Args: `{"command":"echo hello from bash"}`},
			fakemodel.Call{ID: "b", Name: "Bash", Args: `{"command":"` + sleeper + `","background":true}`}),
		fakemodel.Text("Started."))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--auto", "run things")
	if code != 0 || out != "Started.\n" {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "tool Bash completed: hello from bash") {
		t.Errorf("stderr %q", errOut)
	}
	if !strings.Contains(errOut, "1 background job(s) still running; they are stopped as codewhale exits:") || !strings.Contains(errOut, sleeper) {
		t.Errorf("running jobs not reported: %q", errOut)
	}
	if !srv.Requests()[1].HasToolResult("Background task started: shell_") {
		t.Error("background start result did not reach the model")
	}
	// The sleeper was stopped with the process: no orphan is left.
	if out, _ := exec.Command("pgrep", "-f", "^"+sleeper+"$").Output(); len(out) > 0 {
		t.Errorf("orphan sleeper left running: %s", out)
	}
}

// The fake model finds an MCP tool with tool_search, calls it, and the real
// server-everything's answer reaches the next request.
func TestExecCallsAnMCPToolFoundByToolSearch(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"echo"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "e", Name: "mcp_everything_echo", Args: `{"message":"hi from the model"}`}),
		fakemodel.Text("Echoed."))
	c := newCLI(t, srv)
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
		"broken":     map[string]any{"command": "/nonexistent/mcp-server"},
	}})
	if err := os.WriteFile(filepath.Join(c.home, ".codewhale", "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "echo something")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, n := range reqs[0].ToolNames() {
		if strings.HasPrefix(n, "mcp_everything_") {
			t.Errorf("MCP tool %s sent before it was loaded", n)
		}
	}
	if !reqs[1].HasToolResult(`"tool_name":"mcp_everything_echo"`) {
		t.Error("tool_search did not find mcp_everything_echo")
	}
	if names := strings.Join(reqs[1].ToolNames(), ","); !strings.HasSuffix(names, ",mcp_everything_echo") {
		t.Errorf("second request tools %s", names)
	}
	if !reqs[2].HasToolResult("Echo: hi from the model") {
		t.Errorf("the MCP result did not reach the model: %s", reqs[2].Raw)
	}
	for _, n := range reqs[1].ToolNames() {
		if strings.HasPrefix(n, "mcp_broken") {
			t.Error("a failed server contributed a tool")
		}
	}
}

// writeRepo makes a small Go module under git in dir.
func writeRepo(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n",
		"notes.txt":    "alpha\nbeta\ngamma\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// exec --auto reads, edits, patches, searches, runs tests and shell
// commands in a real repository, all through the real tools.
func TestExecWorksInARealRepository(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "r", Name: "File", Args: `{"action":"read","path":"calc.go"}`},
			fakemodel.Call{ID: "s", Name: "File", Args: `{"action":"search_content","pattern":"return a - b"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "e", Name: "File", Args: `{"action":"edit","path":"calc.go","search":"return a - b","replace":"return a + b"}`},
			fakemodel.Call{ID: "p", Name: "File", Args: `{"action":"patch","patch":"--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "t", Name: "Run", Args: `{"action":"tests"}`},
			fakemodel.Call{ID: "b", Name: "Bash", Args: `{"command":"git status --porcelain"}`},
			fakemodel.Call{ID: "g", Name: "Git", Args: `{"action":"diff"}`}),
		fakemodel.Text("Fixed Add; tests pass."))
	c := newCLI(t, srv)
	writeRepo(t, c.ws)
	out, errOut, code := c.run("exec", "--auto", "fix the bug")
	if code != 0 || out != "Fixed Add; tests pass.\n" {
		t.Fatalf("code %d out %q\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !reqs[1].HasToolResult("return a - b") || !reqs[1].HasToolResult(`"line_number":5`) {
		t.Errorf("read/search results missing")
	}
	if !reqs[2].HasToolResult("Replaced 1 occurrence in") || !reqs[2].HasToolResult(`"hunks_applied": 1`) {
		t.Errorf("edit/patch results missing")
	}
	if !reqs[3].HasToolResult(`"passed":1`) || !reqs[3].HasToolResult(" M calc.go") || !reqs[3].HasToolResult("+\treturn a + b") {
		t.Errorf("test/shell results missing: %s", toolMessages(reqs[3]))
	}
	got, _ := os.ReadFile(filepath.Join(c.ws, "calc.go"))
	notes, _ := os.ReadFile(filepath.Join(c.ws, "notes.txt"))
	if !strings.Contains(string(got), "return a + b") || string(notes) != "alpha\nBETA\ngamma\n" {
		t.Errorf("files: %s / %s", got, notes)
	}
}

// toolMessages is the tool results of a request, for failure messages.
func toolMessages(r *fakemodel.Request) string {
	var out []string
	for _, m := range r.Messages() {
		if m["role"] == "tool" {
			out = append(out, fmt.Sprint(m["content"]))
		}
	}
	return strings.Join(out, "\n---\n")
}

// kill -9 in the middle of a streamed answer loses at most that partial
// answer; the session resumes with everything before it.
func TestKilledExecResumes(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"update_plan"}`}),
		fakemodel.Reply{Text: strings.Repeat("streaming slowly ", 300), Chunk: 4, Delay: 20 * time.Millisecond})
	c := newCLI(t, srv)
	cmd := c.command("exec", "--auto", "--output-format", "stream-json", "first prompt")
	pr, pw, _ := os.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	buf := make([]byte, 1<<16)
	var seen strings.Builder
	for !strings.Contains(seen.String(), `"type":"content"`) {
		n, err := pr.Read(buf)
		if err != nil {
			t.Fatalf("exec ended before streaming: %v %s", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	pr.Close()

	srv.Push(fakemodel.Text("resumed fine"))
	out, errOut, code := c.run("exec", "--auto", "--continue", "second prompt")
	if code != 0 || out != "resumed fine\n" {
		t.Fatalf("resume: %d %q %s", code, out, errOut)
	}
	req := srv.Requests()[len(srv.Requests())-1]
	raw := string(req.Raw)
	for _, want := range []string{"first prompt", "tool_search_tool_search_result", "second prompt"} {
		if !strings.Contains(raw, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
	if strings.Contains(raw, "streaming slowly") {
		t.Error("the partial answer being streamed at the kill should be lost, not half-saved")
	}
	out, _, code = c.run("sessions")
	if code != 0 || !strings.Contains(out, "first prompt") {
		t.Errorf("sessions list: %d %s", code, out)
	}
}

func receiptOf(t *testing.T, c *cli, args ...string) (active []string, digest string) {
	t.Helper()
	out, errOut, code := c.run(append([]string{"tools", "--json"}, args...)...)
	var rec struct {
		Active []string `json:"active"`
		Digest string   `json:"active_tool_catalog_sha256"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil {
		t.Fatalf("tools --json: %d %s %s", code, out, errOut)
	}
	return rec.Active, rec.Digest
}

// The provider-free receipt names nine tools with memory on, eight with it
// off, and the seed's six in Plan mode.
// CONTRACT.md §13.5: --mode plan and the memory switch change the receipt's active set as they change the first
// request.
func TestToolsReceiptSets(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	off, _ := receiptOf(t, c)
	if got := strings.Join(off, ","); got != "Bash,File,Git,Run,agent,tasks,work_update,tool_search" {
		t.Errorf("memory off: %s", got)
	}
	plan, _ := receiptOf(t, c, "--mode", "plan")
	if got := strings.Join(plan, ","); got != "File,Git,agent,tasks,work_update,tool_search" {
		t.Errorf("plan: %s", got)
	}
	c.env = append(c.env, "CODEWHALE_MEMORY=1")
	on, _ := receiptOf(t, c)
	if got := strings.Join(on, ","); got != "Bash,File,Git,Run,agent,remember,tasks,work_update,tool_search" {
		t.Errorf("memory on: %s", got)
	}
}

// remember writes the memory file only when memory is on; with it off the
// name is simply not registered.
// CONTRACT.md §12.4: with memory off remember is not registered; on, it writes the note and the next session's system
// prompt carries it marked untrusted.
func TestRememberOffAndOn(t *testing.T) {
	t.Parallel()
	call := fakemodel.Tools(fakemodel.Call{Name: "remember", Args: `{"note":"Prefer table-driven tests"}`})
	srv := fakemodel.New(t, call, fakemodel.Text("ok"), call, fakemodel.Text("ok"), fakemodel.Text("seen"))
	c := newCLI(t, srv)
	_, errOut, code := c.run("exec", "--auto", "remember this")
	if code != 0 || !strings.Contains(errOut, "tool 'remember' is not registered") {
		t.Errorf("memory off: %d %q", code, errOut)
	}
	c.env = append(c.env, "CODEWHALE_MEMORY=on")
	_, errOut, code = c.run("exec", "--auto", "remember this")
	if code != 0 || !strings.Contains(errOut, "tool remember completed: remembered in native memory:") {
		t.Fatalf("memory on: %d %q", code, errOut)
	}
	mem, err := os.ReadFile(filepath.Join(c.home, ".codewhale", "memory", "global", "MEMORY.md"))
	if err != nil || !strings.Contains(string(mem), "- Prefer table-driven tests") {
		t.Errorf("memory file: %v %q", err, mem)
	}
	// The next session's system prompt carries the note as untrusted data.
	c.run("exec", "--auto", "what do I prefer?")
	sys := srv.Requests()[len(srv.Requests())-1].Messages()[0]["content"].(string)
	if !strings.Contains(sys, `<user_memory untrusted="true">`) || !strings.Contains(sys, "Prefer table-driven tests") {
		t.Errorf("memory block missing from the system prompt: %s", sys)
	}
}

// A durable task created in one process is read back by the next.
func TestTaskSurvivesRestart(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{Name: "tasks", Args: `{"action":"create","prompt":"port the registry"}`}),
		fakemodel.Text("created"))
	c := newCLI(t, srv)
	if _, errOut, code := c.run("exec", "--auto", "make a task"); code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	var created struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	res := toolMessages(srv.Requests()[1])
	if err := json.Unmarshal([]byte(res), &created); err != nil || len(created.Task.ID) != len("task_")+16 {
		t.Fatalf("no task id in %s", res)
	}
	id := created.Task.ID
	srv.Push(fakemodel.Tools(fakemodel.Call{Name: "tasks", Args: `{"action":"read","task_id":"` + id[:10] + `"}`}), fakemodel.Text("read"))
	if _, errOut, code := c.run("exec", "--auto", "read it back"); code != 0 {
		t.Fatalf("read: %d %s", code, errOut)
	}
	got := toolMessages(srv.Requests()[3])
	if !strings.Contains(got, id) || !strings.Contains(got, "port the registry") {
		t.Errorf("read back: %s", got)
	}
}

// A sub-agent runs its own tool calls against the same model server and its
// report reaches the parent.
func TestSubAgentReportsBack(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		sys, _ := r.Messages()[0]["content"].(string)
		child := strings.Contains(sys, "You are a sub-agent")
		switch {
		case child && r.HasToolResult("calc.go"):
			return fakemodel.Text("Found calc.go and notes.txt.")
		case child:
			return fakemodel.Tools(fakemodel.Call{Name: "File", Args: `{"action":"list"}`})
		case r.HasToolResult("Found calc.go and notes.txt."):
			return fakemodel.Text("The scout found two files.")
		case r.HasToolResult(`"agent_id"`):
			return fakemodel.Tools(fakemodel.Call{Name: "agent", Args: `{"action":"wait","timeout_secs":30}`})
		default:
			return fakemodel.Tools(fakemodel.Call{Name: "agent", Args: `{"prompt":"list the workspace files","type":"scout"}`})
		}
	})
	c := newCLI(t, srv)
	writeRepo(t, c.ws)
	out, errOut, code := c.run("exec", "--auto", "what files are here?")
	if code != 0 || out != "The scout found two files.\n" {
		t.Fatalf("code %d out %q\n%s", code, out, errOut)
	}
	var childSaw bool
	for _, r := range srv.Requests() {
		sys, _ := r.Messages()[0]["content"].(string)
		if strings.Contains(sys, "You are a sub-agent") && r.HasToolResult("calc.go") {
			childSaw = true
			for _, n := range r.ToolNames() {
				if n == "Bash" || n == "Run" {
					t.Errorf("a read-only scout was offered %s", n)
				}
			}
		}
	}
	if !childSaw {
		t.Error("the child never ran its own File call")
	}
	agents, _ := filepath.Glob(filepath.Join(c.home, ".codewhale", "agents", "agent_*.jsonl"))
	if len(agents) != 1 {
		t.Errorf("saved transcripts: %v", agents)
	}
}

// Without --auto nobody can approve: the write is refused, nothing is
// written, and the run reports approval_required.
func TestExecWithoutAutoRecordsApprovalRequired(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{Name: "File", Args: `{"action":"write","path":"new.txt","content":"x"}`}),
		fakemodel.Text("could not write"))
	c := newCLI(t, srv)
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "write a file")
	if code != 0 {
		t.Fatalf("code %d %s", code, errOut)
	}
	evs := lines(t, out)
	meta := evs[len(evs)-2]["meta"].(map[string]any)
	if meta["termination_reason"] != "approval_required" || meta["approval_posture"] != "ask" {
		t.Errorf("metadata %v", meta)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); err == nil {
		t.Error("the write ran without approval")
	}
	if !srv.Requests()[1].HasToolResult("needs approval (approval_required)") {
		t.Error("the model was not told why")
	}
}

// CONTRACT.md §4.7: with server-everything connected the resource and prompt
// helpers are in the first request (eager), its instructions are in the
// system prompt under its name, and a resource the model reads reaches the
// next request.
func TestExecReadsAnMCPResource(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "r", Name: "read_mcp_resource",
			Args: `{"server":"everything","uri":"demo://resource/static/document/architecture.md"}`}),
		fakemodel.Text("Read."))
	c := newCLI(t, srv)
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
	}})
	if err := os.WriteFile(filepath.Join(c.home, ".codewhale", "mcp.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("exec", "--output-format", "stream-json", "read the architecture doc")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests: %s\n%s", len(reqs), out, errOut)
	}
	names := "," + strings.Join(reqs[0].ToolNames(), ",") + ","
	for _, h := range []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource", "mcp_get_prompt"} {
		if !strings.Contains(names, ","+h+",") {
			t.Errorf("helper %s not in the first request: %s", h, names)
		}
	}
	if strings.Contains(names, ",mcp_everything_echo,") {
		t.Errorf("an ordinary MCP tool was sent before it was loaded: %s", names)
	}
	sys := string(reqs[0].Raw)
	if !strings.Contains(sys, `# MCP server instructions`) || !strings.Contains(sys, `## everything\n`) {
		t.Errorf("the server's instructions are not in the system prompt")
	}
	if !reqs[1].HasToolResult(`not the workspace`) || !reqs[1].HasToolResult(`text/markdown`) {
		t.Errorf("the resource did not reach the model: %s", reqs[1].Raw)
	}
}
