package mcp

import (
	"strings"
	"testing"
	"time"
)

// A stdio server that dies during initialize is failed with how it ended,
// also when a child it left behind still holds its stderr (the case where
// the exit state was once read while the SDK was still waiting for the
// process: a data race under -race). The stand-in servers only sleep.
func TestPoolNamesHowAStdioServerDiedDuringStartup(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, map[string]any{
		"plain": map[string]any{"command": "sh", "args": []string{"-c", "echo 'boom: no key' >&2; exit 3"}},
		"held": map[string]any{"command": "sh", "args": []string{"-c",
			"sleep 30 </dev/null >/dev/null & echo 'boom: no key' >&2; exit 3"}},
		"killed": map[string]any{"command": "sh", "args": []string{"-c", "echo 'boom: no key' >&2; kill -KILL $$"}},
	}, nil)
	p := startPool(t, path, Options{})
	for name, want := range map[string]string{
		"plain":  "the server exited during startup (exit status 3)",
		"held":   "the server exited during startup (exit status 3)",
		"killed": "the server exited during startup (signal: killed)",
	} {
		st := mustStatus(t, p, name)
		if st.State != StateFailed || !strings.Contains(st.Error, want) {
			t.Errorf("%s: state %s error %q; want failed with %q", name, st.State, st.Error, want)
		}
		if !strings.Contains(st.StderrTail, "boom: no key") {
			t.Errorf("%s: stderr tail %q, want the server's message", name, st.StderrTail)
		}
	}
}

// Closing a stdio server that ignores both the end of its stdin and SIGTERM
// ends it with SIGKILL, after the grace period twice, not the SDK's 5 s.
func TestStdioCloseEscalatesToKill(t *testing.T) {
	t.Parallel()
	d := dialStdio(&ServerConfig{Command: "sh", Args: []string{"-c", `trap '' TERM; echo ready; while :; do sleep 1; done`}}, "")
	conn, err := d.transport.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(d.proc.pid()) })
	msg, err := conn.Read(t.Context())
	if err == nil {
		t.Fatalf("read %v, want a decode error for the non-JSON line", msg)
	}
	start := time.Now()
	_ = conn.Close()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %s", took)
	}
	if got := d.proc.exitState(); got != "signal: killed" {
		t.Errorf("exit state %q, want %q", got, "signal: killed")
	}
}
