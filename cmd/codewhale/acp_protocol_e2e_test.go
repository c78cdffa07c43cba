package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

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
// README.md "In an editor (ACP)": only JSON-RPC 2.0 messages go to stdout.
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

// TestACPAuthenticateWhenKeyMissing: with a provider that needs a key and
// none configured, session/new answers Authentication required and
// authenticate fails until `codewhale auth set` stores one.
// README.md "In an editor (ACP)": no key: auth required, codewhale-api-key.
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
	p.send(`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"` + c.ws + `","mcpServers":[]}}`)
	if m := p.recv(); code(m) != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "initialize") {
		t.Errorf("session/new before initialize = %v, want Invalid request naming initialize", m)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := p.recv(); m["id"] != 5.0 || m["result"] == nil {
		t.Errorf("initialize after the errors = %v, want an answer", m)
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
