package main

import (
	"bufio"
	"encoding/json"
	"io"
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
	srv := fakemodel.New(t, fakemodel.Text("Hello from codewhale."),
		fakemodel.Reply{Text: long, Delay: 20 * time.Millisecond})
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
	out, stderr, code := c.run("sessions")
	if code != 0 || !strings.Contains(out, r.SessionID[:8]) {
		t.Errorf("codewhale sessions does not list the ACP session %s (exit %d): %s %s", r.SessionID, code, out, stderr)
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
