package bash

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools"
)

// BenchmarkBashEchoRoundTrip is one Bash `echo` through the tool: input
// normalisation, schema validation, job start in its own process group,
// output capture and result rendering. Compare with BenchmarkShellEcho (the
// bare process start) for the tool's overhead.
func BenchmarkBashEchoRoundTrip(b *testing.B) {
	m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	reg := tools.NewRegistry()
	reg.Register(New(Options{Jobs: m}))
	tc := &tools.Context{Workspace: tools.Canonical(b.TempDir())}
	in := json.RawMessage(`{"command":"echo hi"}`)
	ctx := context.Background()
	for b.Loop() {
		res, err := reg.Execute(ctx, tc, "Bash", in)
		if err != nil || res.Content != "hi\n" {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkShellEcho is the baseline: exec of `sh -c 'echo hi'` directly.
func BenchmarkShellEcho(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "echo hi")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil || string(out) != "hi\n" {
			b.Fatalf("%q %v", out, err)
		}
	}
}
