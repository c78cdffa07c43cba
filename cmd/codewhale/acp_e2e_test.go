package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	// Under GOFLAGS=-race the agent is built with the detector too.
	if strings.Contains(stderr.String(), "DATA RACE") {
		c.t.Errorf("race in codewhale acp:\n%s", stderr.String())
	}
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
// README.md "In an editor (ACP)": answers stream, cancel interrupts, the session is listed.
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
// README.md "In an editor (ACP)": approvals are asked in the editor with the card's text.
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
// README.md "In an editor (ACP)": the editor's mode picker sets the mode.
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

// TestACPFilesGoThroughTheEditor: a client that offers fs/* sees File's
// read (its unsaved buffer is what the model reads) and File's write (the
// text reaches the editor, which saves it). A write outside the
// workspace is refused by the File boundary before the editor is asked.
// README.md "In an editor (ACP)": File goes through the editor's buffers, in the boundary.
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
// README.md "In an editor (ACP)": a session is an ordinary codewhale session, loaded again.
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

// TestACPPermissionNeverAnswered: a client that never answers a
// permission request does not hang the turn: after --permission-timeout
// the call is denied and the turn ends.
// README.md "In an editor (ACP)": --permission-timeout denies an unanswered call.
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

// TestACPPromptImage: an image block of a prompt goes with the text, as an
// attached image does (CONTRACT.md §14.11): checked, encoded, one
// image_url part of the request.
func TestACPPromptImage(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("grey."))
	c := imageCLI(t, srv, "seer", true)
	shot, err := os.ReadFile(filepath.Join(c.ws, "shot.png"))
	if err != nil {
		t.Fatal(err)
	}
	r := c.acpClient("image", "ACP_IMAGE="+base64.StdEncoding.EncodeToString(shot))
	if r.Turn.Text != "grey." {
		t.Fatalf("turn = %+v", r.Turn)
	}
	pngPart(t, srv.Requests()[0])
}
