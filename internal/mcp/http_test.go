package mcp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startEverythingHTTP runs server-everything in Streamable HTTP mode on a
// free port and returns its endpoint once the server says it listens.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	url, _ := startEverythingHTTPOn(t, freePort(t))
	return url
}

// startEverythingHTTPOn starts the server on port; the returned function
// kills it (also done at cleanup).
func startEverythingHTTPOn(t *testing.T, port int) (string, func()) {
	t.Helper()
	bin := serverBin(t, "mcp-server-everything")
	cmd := exec.Command("node", bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Cleanup(kill)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() { // keep draining so the server never blocks on stderr
			if !signalled && strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				signalled = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything (streamableHttp) did not report listening within 30s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port), kill
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Not parallel: it sets an environment variable for bearer_token_env_var.
func TestEverythingStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t)
	t.Setenv("CODEWHALE_TEST_MCP_TOKEN", "sekrit")
	p := startPool(t, writeConfig(t, map[string]any{
		"remote": map[string]any{"url": url, "headers": map[string]string{"X-Test": "1"},
			"bearer_token_env_var": "CODEWHALE_TEST_MCP_TOKEN"},
	}, nil), Options{})
	st := requireConnected(t, p, "remote")
	if st.Transport != TransportHTTP || len(st.Tools) < 10 {
		t.Fatalf("status = %+v, want a Streamable HTTP server with its tools", st)
	}
	cases := []struct{ tool, in, want string }{
		{"mcp_remote_echo", `{"message":"over http"}`, `Echo: over http`},
		{"mcp_remote_get-sum", `{"a":40,"b":2}`, `The sum of 40 and 2 is 42.`},
	}
	for _, c := range cases {
		res, err := call(t, context.Background(), findTool(t, p, c.tool), c.in)
		if err != nil || !res.Success || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s: %+v, %v; want %q", c.tool, res, err, c.want)
		}
	}
}

// A restarted HTTP server no longer knows the session: the next call
// reconnects once and succeeds.
func TestStreamableHTTPReconnectsAfterServerRestart(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	url, kill := startEverythingHTTPOn(t, port)
	p := startPool(t, writeConfig(t, map[string]any{"remote": map[string]any{"url": url}}, nil), Options{})
	requireConnected(t, p, "remote")
	echo := findTool(t, p, "mcp_remote_echo")
	kill()
	startEverythingHTTPOn(t, port)
	res, err := call(t, context.Background(), echo, `{"message":"again"}`)
	if err != nil || !strings.Contains(res.Content, "Echo: again") {
		t.Fatalf("call after restart: %+v, %v; status %+v", res, err, mustStatus(t, p, "remote"))
	}
	requireConnected(t, p, "remote")
}
