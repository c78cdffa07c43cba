package tasks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools"
)

const (
	defaultGateTimeout = 120_000 // ms
	minGateTimeout     = 1_000
	maxGateTimeout     = 600_000
	maxSummaryChars    = 900
	maxCapturedBytes   = 4 << 20 // per stream; the log notes a cut
)

// gateRun is one finished gate command.
type gateRun struct {
	exitCode       *int
	stdout, stderr string
	timedOut       bool
	spawnErr       error
	duration       time.Duration
}

// runGate runs command as a job in cwd under sb (nil: the manager's
// sandbox). On timeout the whole process tree is killed. A cancelled ctx
// (the user stopped the turn) also kills it and is reported by the caller
// as a cancellation.
func runGate(ctx context.Context, m *jobs.Manager, sb *sandbox.Sandbox, command, cwd string, timeout time.Duration) gateRun {
	var stdout, stderr capped
	start := time.Now()
	j, err := m.Start(jobs.Spec{Command: command, Dir: cwd, Timeout: timeout, Stdout: &stdout, Stderr: &stderr, Sandbox: sb})
	if err != nil {
		return gateRun{spawnErr: err, duration: time.Since(start)}
	}
	m.AwaitEnd(ctx, j) // the gate record needs the verdict, even if moved to /jobs
	snap, _ := m.Snapshot(j.ID())
	r := gateRun{stdout: stdout.String(), stderr: stderr.String(), duration: time.Since(start),
		timedOut: snap.Status == jobs.TimedOut}
	if snap.Status == jobs.Completed || snap.Status == jobs.Failed {
		r.exitCode = snap.ExitCode
	}
	if snap.Denial != nil {
		r.stderr += "\n[sandbox] " + snap.Denial.Note
	}
	return r
}

// capped keeps the first maxCapturedBytes of a stream.
type capped struct {
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxCapturedBytes - c.buf.Len(); room < len(p) {
		c.cut = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string {
	if c.cut {
		return c.buf.String() + fmt.Sprintf("\n[output cut at %d bytes]", maxCapturedBytes)
	}
	return c.buf.String()
}

func (r gateRun) status() string {
	switch {
	case r.timedOut:
		return "timeout"
	case r.exitCode != nil && *r.exitCode == 0:
		return "passed"
	}
	return "failed"
}

func (r gateRun) log(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\n\n[stdout]\n%s\n\n[stderr]\n%s\n", command, r.stdout, r.stderr)
	if r.spawnErr != nil {
		fmt.Fprintf(&b, "\n[spawn_error]\n%v\n", r.spawnErr)
	}
	if r.timedOut {
		fmt.Fprintf(&b, "\n[timeout]\nkilled after %d ms\n", r.duration.Milliseconds())
	}
	return b.String()
}

// summary prefers stderr, then stdout, then the spawn error.
func (r gateRun) summary() string {
	switch {
	case strings.TrimSpace(r.stderr) != "":
		return Summarize(r.stderr, maxSummaryChars)
	case strings.TrimSpace(r.stdout) != "":
		return Summarize(r.stdout, maxSummaryChars)
	case r.spawnErr != nil:
		return Summarize(r.spawnErr.Error(), maxSummaryChars)
	}
	return "(no output)"
}

// classify names why a gate did not pass, so a reader can tell a real test
// failure from a broken environment.
func classify(gate string, r gateRun) string {
	switch st := r.status(); st {
	case "timeout", "passed":
		return st
	}
	out := strings.ToLower(r.stderr + "\n" + r.stdout)
	switch {
	case strings.Contains(out, "address already in use"):
		return "environment_port_binding"
	case gate == "clippy" || gate == "fmt" || strings.Contains(out, "warning:"):
		return "lint_failure"
	case gate == "test" || strings.Contains(out, "test result: failed") || strings.Contains(out, "--- fail"):
		return "test_failure"
	case strings.Contains(out, "could not compile") || strings.Contains(out, "compilation failed") ||
		strings.Contains(out, "build failed"):
		return "compile_error"
	}
	return "environment_or_tooling_failure"
}

func newGateID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "gate_" + hex.EncodeToString(b[:])
}

// gateCwd resolves cwd inside the workspace; it must be a directory.
func gateCwd(tc *tools.Context, raw string) (string, error) {
	if raw == "" {
		return tc.Workspace, nil
	}
	dir, err := tc.ResolvePath(raw)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", tools.InvalidInput("cwd must be a directory: %s", raw)
	}
	return dir, nil
}
