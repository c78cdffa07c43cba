package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// acpRun is what the TypeScript client (testdata/acp/client.mjs) saw.
type acpRun struct {
	Init struct {
		ProtocolVersion   int            `json:"protocolVersion"`
		AgentCapabilities map[string]any `json:"agentCapabilities"`
		AuthMethods       []any          `json:"authMethods"`
	} `json:"init"`
	InitMs    int    `json:"initMs"`
	SessionID string `json:"sessionId"`
	Modes     struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	} `json:"modes"`
	First, Cancelled, Turn, Again acpTurn
	Updates                       []map[string]any `json:"updates"`
	Permissions                   []map[string]any `json:"permissions"`
	Writes, Reads                 []map[string]any
	Replay                        []map[string]any `json:"replay"`
}

type acpTurn struct {
	StopReason string `json:"stopReason"`
	Text       string `json:"text"`
}

// acpClient runs the SDK client through scenario against `codewhale acp`
// in c's home and workspace.
func (c *cli) acpClient(scenario string, env ...string) acpRun {
	c.t.Helper()
	sdk := e2e.ACPClientSDK(c.t)
	script, err := filepath.Abs(filepath.Join("testdata", "acp", "client.mjs"))
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command("node", script, scenario)
	cmd.Dir = c.ws
	cmd.Env = append(append(append([]string(nil), c.env...), "ACP_SDK="+sdk, "ACP_BIN="+binary, "ACP_CWD="+c.ws), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("ACP client %s: %v\nstdout: %s\nstderr: %s", scenario, err, out, stderr.String())
	}
	var r acpRun
	if err := json.Unmarshal(out, &r); err != nil {
		c.t.Fatalf("ACP client output %q: %v\nstderr: %s", out, err, stderr.String())
	}
	return r
}

// TestACPPromptStreamsAndCancels drives `codewhale acp` with the
// protocol's TypeScript SDK: initialize, a new session, a prompt whose
// answer streams as agent_message_chunk updates, then a prompt cancelled
// mid-stream (stopReason cancelled). The session is an ordinary saved
// session: `codewhale sessions` lists it.
func TestACPPromptStreamsAndCancels(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("once upon a time ", 200)
	hello := fakemodel.Text("Hello from codewhale.")
	hello.Reasoning = "The user wants a greeting."
	srv := fakemodel.New(t, hello, fakemodel.Reply{Text: long, Delay: 20 * time.Millisecond}, fakemodel.Text("resumed"))
	c := newCLI(t, srv)
	r := c.acpClient("basic")
	if r.Init.ProtocolVersion != 1 || r.Init.AgentCapabilities["loadSession"] != true {
		t.Errorf("initialize = %+v, want protocol 1 with loadSession", r.Init)
	}
	if r.SessionID == "" || r.Modes.CurrentModeID != "act" || len(r.Modes.AvailableModes) != 3 {
		t.Errorf("session/new = %q %+v, want an id and the three modes with act current", r.SessionID, r.Modes)
	}
	if r.First.StopReason != "end_turn" || r.First.Text != "Hello from codewhale." {
		t.Errorf("first prompt = %+v, want end_turn with the streamed text", r.First)
	}
	if r.Cancelled.StopReason != "cancelled" || r.Cancelled.Text == "" || len(r.Cancelled.Text) >= len(long) {
		t.Errorf("cancelled prompt = %q (%d of %d chars), want stopReason cancelled after part of the text",
			r.Cancelled.StopReason, len(r.Cancelled.Text), len(long))
	}
	var thought string
	for _, u := range updatesOf(r, "agent_thought_chunk") {
		thought += u["content"].(map[string]any)["text"].(string)
	}
	if thought != "The user wants a greeting." {
		t.Errorf("thought chunks = %q, want the reasoning", thought)
	}
	out, stderr, code := c.run("sessions")
	if code != 0 || !strings.Contains(out, r.SessionID[:8]) {
		t.Errorf("codewhale sessions does not list the ACP session %s (exit %d): %s %s", r.SessionID, code, out, stderr)
	}
	// The TUI and exec resume it as any session (session.Resolve).
	if out, stderr, code := c.run("exec", "--resume", r.SessionID, "go on"); code != 0 || !strings.Contains(out, "resumed") {
		t.Errorf("exec --resume of the ACP session: exit %d, %s %s", code, out, stderr)
	}
	reqs := srv.Requests()
	if last := fmt.Sprint(reqs[len(reqs)-1].Messages()); !strings.Contains(last, "Hello from codewhale.") {
		t.Errorf("the resumed session lacks the ACP history: %s", last)
	}
}

// acpProc is `codewhale acp` driven line by line, for what an SDK client
// would never send.
type acpProc struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
	cmd *exec.Cmd
}

func (c *cli) acpProcess() *acpProc {
	c.t.Helper()
	cmd := c.command("acp")
	in, err := cmd.StdinPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	p := &acpProc{t: c.t, in: in, out: bufio.NewScanner(out), cmd: cmd}
	p.out.Buffer(nil, 1<<20)
	c.t.Cleanup(func() {
		_ = in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			c.t.Error("codewhale acp did not exit when stdin closed")
		}
	})
	return p
}

func (p *acpProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// recv reads the next message; every line must be JSON-RPC 2.0.
func (p *acpProc) recv() map[string]any {
	p.t.Helper()
	if !p.out.Scan() {
		p.t.Fatalf("codewhale acp closed stdout: %v", p.out.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(p.out.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
		p.t.Fatalf("stdout line %q is not a JSON-RPC 2.0 message (%v)", p.out.Bytes(), err)
	}
	return m
}

// TestACPStdoutCarriesOnlyProtocol checks that every line the agent wrote
// to stdout is a JSON-RPC 2.0 message, from start to a new session.
func TestACPStdoutCarriesOnlyProtocol(t *testing.T) {
	t.Parallel()
	c := newCLI(t, fakemodel.New(t))
	p := c.acpProcess()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := p.recv(); m["id"] != 1.0 || m["result"] == nil {
		t.Errorf("initialize answered %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + c.ws + `","mcpServers":[]}}`)
	if m := p.recv(); m["id"] != 2.0 || m["result"] == nil {
		t.Errorf("session/new answered %v", m)
	}
}

// updatesOf are the session updates of one kind.
func updatesOf(r acpRun, kind string) []map[string]any {
	var out []map[string]any
	for _, u := range r.Updates {
		if u["sessionUpdate"] == kind {
			out = append(out, u)
		}
	}
	return out
}

// TestACPPermissionAllowAndDeny: a File write that needs approval becomes
// session/request_permission with the card's content (the approval card's
// text, the diff, the card's options); the client's allow runs it, its
// deny (in another run) does not. Tool calls carry kind, status, location
// and diff; the To-do list arrives as plan entries.
func TestACPPermissionAllowAndDeny(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"allow_once", "deny"} {
		t.Run(answer, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t,
				fakemodel.Tools(fakemodel.Call{ID: "w1", Name: "work_update", Args: `{"todos":[{"content":"write hello","status":"in_progress"},{"content":"report","status":"pending"}]}`}),
				fakemodel.Tools(fakemodel.Call{ID: "f1", Name: "File", Args: `{"action":"write","path":"hello.txt","content":"hello from the editor\n"}`}),
				fakemodel.Text("done"))
			c := newCLI(t, srv)
			r := c.acpClient("prompt", "ACP_ANSWER="+answer)
			if len(r.Permissions) != 1 {
				t.Fatalf("permission requests = %d, want 1: %+v", len(r.Permissions), r.Permissions)
			}
			p := r.Permissions[0]
			var ids []string
			for _, o := range p["options"].([]any) {
				ids = append(ids, o.(map[string]any)["optionId"].(string))
			}
			if got := strings.Join(ids, ","); got != "allow_once,allow_session,allow_always,deny,abort" {
				t.Errorf("options = %s, want the card's: allow once, for the session, always (save rule), deny, abort", got)
			}
			tc := p["toolCall"].(map[string]any)
			body, _ := json.Marshal(tc["content"])
			for _, want := range []string{"Action: `write`", "File: `hello.txt`", "Write: 22 bytes · 1 line", "hello from the editor", `"type":"diff"`} {
				if !strings.Contains(string(body), want) {
					t.Errorf("permission content lacks %q: %s", want, body)
				}
			}
			if tc["kind"] != "edit" {
				t.Errorf("permission tool call kind = %v, want edit", tc["kind"])
			}
			_, err := os.Stat(filepath.Join(c.ws, "hello.txt"))
			var fileUpdate map[string]any
			for _, u := range updatesOf(r, "tool_call_update") {
				if u["toolCallId"] == "f1" {
					fileUpdate = u
				}
			}
			switch answer {
			case "allow_once":
				if err != nil || fileUpdate["status"] != "completed" {
					t.Errorf("allowed write: file %v, update %v; want the file written and status completed", err, fileUpdate)
				}
			default:
				if err == nil || fileUpdate["status"] != "failed" {
					t.Errorf("denied write: file %v, update %v; want no file and status failed", err, fileUpdate)
				}
			}
			var started map[string]any
			for _, u := range updatesOf(r, "tool_call") {
				if u["toolCallId"] == "f1" {
					started = u
				}
			}
			locs, _ := json.Marshal(started["locations"])
			if started["kind"] != "edit" || started["status"] != "pending" || !strings.Contains(string(locs), filepath.Join(c.ws, "hello.txt")) {
				t.Errorf("tool_call = %v, want kind edit, status pending, the file's absolute path as location", started)
			}
			plans := updatesOf(r, "plan")
			if len(plans) == 0 {
				t.Fatalf("no plan update for the To-do list: %v", r.Updates)
			}
			entries, _ := json.Marshal(plans[0]["entries"])
			if !strings.Contains(string(entries), `"content":"write hello"`) || !strings.Contains(string(entries), `"status":"in_progress"`) {
				t.Errorf("plan entries = %s, want the To-do items", entries)
			}
			if r.Turn.StopReason != "end_turn" || r.Turn.Text != "done" {
				t.Errorf("turn = %+v", r.Turn)
			}
		})
	}
}

// TestACPSetModePlan: session/set_mode plan switches the engine to Plan
// mode, confirmed with current_mode_update, and the next request carries
// Plan's tools (no Bash).
func TestACPSetModePlan(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("a plan"))
	c := newCLI(t, srv)
	r := c.acpClient("mode")
	modes := updatesOf(r, "current_mode_update")
	if len(modes) == 0 || modes[len(modes)-1]["currentModeId"] != "plan" {
		t.Errorf("mode updates = %v, want current_mode_update plan", modes)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || strings.Contains(strings.Join(reqs[0].ToolNames(), ","), "Bash") {
		t.Errorf("the Plan-mode request's tools = %v, want no Bash", reqs[len(reqs)-1].ToolNames())
	}
	if r.Turn.StopReason != "end_turn" {
		t.Errorf("turn = %+v", r.Turn)
	}
}

// TestACPAuthenticateWhenKeyMissing: with a provider that needs a key and
// none configured, session/new answers Authentication required and
// authenticate fails until `codewhale auth set` stores one.
func TestACPAuthenticateWhenKeyMissing(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	c.env = append(c.env, "CODEWHALE_BASE_URL=https://api.deepseek.com")
	p := c.acpProcess()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	init := p.recv()
	methods, _ := json.Marshal(init["result"].(map[string]any)["authMethods"])
	if !strings.Contains(string(methods), `"id":"codewhale-api-key"`) {
		t.Errorf("authMethods = %s", methods)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + c.ws + `","mcpServers":[]}}`)
	if m := p.recv(); m["error"] == nil || m["error"].(map[string]any)["code"] != -32000.0 {
		t.Errorf("session/new without a key = %v, want error -32000 (auth required)", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"methodId":"codewhale-api-key"}}`)
	if m := p.recv(); m["error"] == nil {
		t.Errorf("authenticate without a key = %v, want an error", m)
	}
	set := c.command("auth", "set")
	set.Stdin = strings.NewReader("sk-acptestkey12345678\n")
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("auth set: %v %s", err, out)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"authenticate","params":{"methodId":"codewhale-api-key"}}`)
	if m := p.recv(); m["error"] != nil || m["id"] != 4.0 {
		t.Errorf("authenticate after auth set = %v, want a result", m)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"` + c.ws + `","mcpServers":[]}}`)
	if m := p.recv(); m["result"] == nil {
		t.Errorf("session/new after authenticate = %v, want a session", m)
	}
}

// TestACPFilesGoThroughTheEditor: a client that offers fs/* sees File's
// read (its unsaved buffer is what the model reads) and File's write (the
// text reaches the editor, which saves it). A write outside the
// workspace is refused by the File boundary before the editor is asked.
func TestACPFilesGoThroughTheEditor(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "r1", Name: "File", Args: `{"action":"read","path":"notes.txt"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "w1", Name: "File", Args: `{"action":"write","path":"out.txt","content":"written by the editor\n"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "w2", Name: "File", Args: `{"action":"write","path":"../escape.txt","content":"no\n"}`}),
		fakemodel.Text("done"))
	c := newCLI(t, srv)
	if err := os.WriteFile(filepath.Join(c.ws, "notes.txt"), []byte("saved line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.acpClient("fs", "ACP_ANSWER=allow_once")
	if len(r.Reads) != 1 || r.Reads[0]["path"] != filepath.Join(c.ws, "notes.txt") {
		t.Errorf("fs/read_text_file requests = %v, want one for notes.txt", r.Reads)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 || !reqs[1].HasToolResult("unsaved line from the editor") {
		t.Errorf("the model did not read the editor's buffer")
	}
	if len(r.Writes) != 1 || r.Writes[0]["path"] != filepath.Join(c.ws, "out.txt") || r.Writes[0]["content"] != "written by the editor\n" {
		t.Errorf("fs/write_text_file requests = %v, want exactly the one inside the workspace", r.Writes)
	}
	if b, err := os.ReadFile(filepath.Join(c.ws, "out.txt")); err != nil || string(b) != "written by the editor\n" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.ws), "escape.txt")); err == nil {
		t.Error("a write outside the workspace went through")
	}
	if r.Turn.StopReason != "end_turn" {
		t.Errorf("turn = %+v", r.Turn)
	}
}

// TestACPLoadSession: a session made over ACP is loaded again in a new
// agent process: its history is replayed as updates before session/load
// answers, and the next prompt carries it to the model.
func TestACPLoadSession(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("the first answer"), fakemodel.Text("the second answer"))
	c := newCLI(t, srv)
	first := c.acpClient("prompt")
	r := c.acpClient("load", "ACP_SESSION="+first.SessionID)
	var user, agent string
	for _, u := range r.Replay {
		content, _ := u["content"].(map[string]any)
		switch u["sessionUpdate"] {
		case "user_message_chunk":
			user += content["text"].(string)
		case "agent_message_chunk":
			agent += content["text"].(string)
		}
	}
	if !strings.Contains(user, "do the thing") || agent != "the first answer" {
		t.Errorf("replay: user %q, agent %q; want the saved exchange", user, agent)
	}
	if r.Again.StopReason != "end_turn" || r.Again.Text != "the second answer" {
		t.Errorf("prompt after load = %+v", r.Again)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(fmt.Sprint(last.Messages()), "the first answer") {
		t.Errorf("the prompt after load did not carry the loaded history: %v", last.Messages())
	}
}

// TestACPProtocolErrors: what a broken or early client sends gets a
// protocol-correct error, and the agent keeps serving.
func TestACPProtocolErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t, fakemodel.New(t))
	p := c.acpProcess()
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		n, _ := e["code"].(float64)
		return n
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize",`)
	if m := p.recv(); code(m) != -32700 || m["id"] != nil {
		t.Errorf("malformed JSON = %v, want Parse error -32700 with id null", m)
	}
	p.send(`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`)
	if m := p.recv(); code(m) != -32600 {
		t.Errorf("a batch = %v, want Invalid request -32600", m)
	}
	p.send(`{"jsonrpc":"2.0"}`)
	if m := p.recv(); code(m) != -32600 {
		t.Errorf("an object with neither id nor method = %v, want Invalid request -32600", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"no/such_method","params":{}}`)
	if m := p.recv(); code(m) != -32601 || m["id"] != 3.0 {
		t.Errorf("unknown method = %v, want Method not found -32601", m)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"never-opened","prompt":[{"type":"text","text":"hi"}]}}`)
	m := p.recv()
	if code(m) != -32602 || !strings.Contains(fmt.Sprint(m["error"]), "session/new") {
		t.Errorf("prompt before session/new = %v, want Invalid params naming session/new", m)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := p.recv(); m["id"] != 5.0 || m["result"] == nil {
		t.Errorf("initialize after the errors = %v, want an answer", m)
	}
}

// TestACPPermissionNeverAnswered: a client that never answers a
// permission request does not hang the turn: after --permission-timeout
// the call is denied and the turn ends.
func TestACPPermissionNeverAnswered(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "f1", Name: "File", Args: `{"action":"write","path":"x.txt","content":"x\n"}`}),
		fakemodel.Text("gave up"))
	c := newCLI(t, srv)
	start := time.Now()
	r := c.acpClient("prompt", "ACP_ANSWER=never", "ACP_ARGS=--permission-timeout 500ms")
	if len(r.Permissions) != 1 || r.Turn.StopReason != "end_turn" || r.Turn.Text != "gave up" {
		t.Errorf("unanswered permission: %d requests, turn %+v; want one request, then the turn's end", len(r.Permissions), r.Turn)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "x.txt")); err == nil {
		t.Error("the unanswered call ran")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the run took %v", d)
	}
}

// TestACPInitializeWithin20ms: an editor starting the agent gets its
// initialize answer within 20 ms of the process start (docs/PERFORMANCE.md,
// "ACP"). The fastest of several starts is held to the budget, so a busy
// machine's slow start does not fail the test; the median is logged with
// the ratio to `codewhale --version` measured in the same run.
func TestACPInitializeWithin20ms(t *testing.T) {
	c := newCLI(t, nil)
	var times []time.Duration
	for range 9 {
		p := c.acpProcessStarted(func(p *acpProc) {
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			p.recv()
		})
		times = append(times, p)
	}
	var version []time.Duration // the reference start-up, measured in the same run
	for range 9 {
		start := time.Now()
		if err := c.command("--version").Run(); err != nil {
			t.Fatal(err)
		}
		version = append(version, time.Since(start))
	}
	slices.Sort(times)
	slices.Sort(version)
	t.Logf("initialize answered after %v (fastest), %v (median) of 9 starts; codewhale --version %v (median): ratio %.2f",
		times[0], times[len(times)/2], version[len(version)/2], float64(times[len(times)/2])/float64(version[len(version)/2]))
	// On a machine other work keeps busy the process start itself slows
	// down: the budget then is half again the --version start-up measured
	// beside it.
	if budget := max(20*time.Millisecond, version[0]*3/2); times[0] > budget {
		t.Errorf("initialize answered after %v at best, want within %v of the start (--version: %v)", times[0], budget, version[0])
	}
}

// acpProcessStarted starts `codewhale acp`, runs do and returns how long
// from before the start until do returned; the process is ended after.
func (c *cli) acpProcessStarted(do func(*acpProc)) time.Duration {
	c.t.Helper()
	start := time.Now()
	p := c.acpProcess()
	do(p)
	took := time.Since(start)
	_ = p.in.Close()
	_ = p.cmd.Wait()
	return took
}

// TestACPClientMCPServers: an MCP server the editor passes in session/new
// starts for the session, as one in mcp.json would: the model finds its
// tool with tool_search and the real server's answer reaches it.
func TestACPClientMCPServers(t *testing.T) {
	t.Parallel()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"echo"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "e", Name: "mcp_everything_echo", Args: `{"message":"hi from the editor's server"}`}),
		fakemodel.Text("Echoed."))
	c := newCLI(t, srv)
	servers, _ := json.Marshal([]map[string]any{{"name": "everything", "command": "node", "args": []string{bin, "stdio"}, "env": []any{}}})
	r := c.acpClient("prompt", "ACP_ANSWER=allow_once", "ACP_MCP="+string(servers))
	reqs := srv.Requests()
	if len(reqs) != 3 || !reqs[2].HasToolResult("Echo: hi from the editor's server") {
		t.Errorf("the editor's MCP server did not answer (%d requests); turn %+v; updates %v", len(reqs), r.Turn, r.Updates)
	}
}

// TestACPExplicitApprovalOffersNoSessionGrant: a hostile write to a
// protected path (.git/config, which decides what git runs) reaches the
// editor as the TUI's explicit card: the reason first, no "allow for the
// session" or "always"; a client that answers with the session grant
// anyway is denied, and nothing is written.
func TestACPExplicitApprovalOffersNoSessionGrant(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "g1", Name: "File", Args: `{"action":"write","path":".git/config","content":"[core]\n\tfsmonitor = /tmp/x\n"}`}),
		fakemodel.Text("stopped"))
	c := newCLI(t, srv)
	if out, err := exec.Command("git", "init", "-q", c.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	before, _ := os.ReadFile(filepath.Join(c.ws, ".git", "config"))
	r := c.acpClient("prompt", "ACP_ANSWER=allow_session")
	if len(r.Permissions) != 1 {
		t.Fatalf("permission requests = %v", r.Permissions)
	}
	body, _ := json.Marshal(r.Permissions[0])
	if !strings.Contains(string(body), "Needs your explicit approval") || strings.Contains(string(body), "allow_session") ||
		strings.Contains(string(body), "allow_always") {
		t.Errorf("the explicit approval's request = %s; want the reason and no session or saved grant", body)
	}
	if after, _ := os.ReadFile(filepath.Join(c.ws, ".git", "config")); string(after) != string(before) {
		t.Errorf(".git/config was written: %q", after)
	}
}

// TestACPRetryIsTold: a stream cut mid-answer is re-sent; the client is
// told (a thought with the retry line, the withdrawn text marked) and the
// answer that follows is whole.
func TestACPRetryIsTold(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: "a first try that breaks off", CutAfter: 3}, fakemodel.Text("the whole answer"))
	c := newCLI(t, srv)
	r := c.acpClient("prompt")
	var thoughts string
	for _, u := range updatesOf(r, "agent_thought_chunk") {
		thoughts += u["content"].(map[string]any)["text"].(string)
	}
	if !strings.Contains(thoughts, "retrying") || !strings.Contains(r.Turn.Text, "(withdrawn: ") ||
		!strings.HasSuffix(r.Turn.Text, "the whole answer") {
		t.Errorf("thoughts %q, text %q; want the retry told and the whole answer last", thoughts, r.Turn.Text)
	}
}
