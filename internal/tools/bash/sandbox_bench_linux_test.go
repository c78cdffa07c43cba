package bash

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/sandbox"
	"github.com/codewhale/codewhale/internal/tools"
)

// BenchmarkBashEchoSandbox is the Bash `echo` round trip with the sandbox
// off and under each Linux mechanism, interleaved in every iteration so load
// drift does not skew the comparison; each variant reports its own ms/op.
// The workspace has a .git (bound read-only, or carved around) and is not
// inside the temp dir, as for a user's checkout. The user-namespace
// variants go through a spawner, a real codewhale binary (built here)
// started once and then kept. The bound: sandboxed within 2 ms of
// off.
func BenchmarkBashEchoSandbox(b *testing.B) {
	base := tools.Canonical(b.TempDir())
	ws, tmp := filepath.Join(base, "ws"), filepath.Join(base, "tmp")
	for _, d := range []string{filepath.Join(ws, ".git"), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	policy := sandbox.DefaultPolicy(sandbox.Defaults{Mode: sandbox.WorkspaceWrite, Workspace: ws,
		TempDirs: []string{tmp}, Network: true})
	deny := policy
	deny.Network = false
	with := func(p sandbox.Policy, c *sandbox.Caps) *sandbox.Sandbox {
		if c == nil {
			return sandbox.New(p, sandbox.Options{})
		}
		caps := *c
		return sandbox.New(p, sandbox.Options{Probe: func() sandbox.Caps { return caps }})
	}
	type variant struct {
		name string
		sb   *sandbox.Sandbox
	}
	vs := []variant{{"off", nil}}
	if sys := with(policy, nil); sys.Mechanism() == sandbox.Landlock {
		vs = append(vs, variant{"landlock", sys}, variant{"landlock-netdeny", with(deny, nil)},
			variant{"landlock-nomountns", with(policy, &sandbox.Caps{LandlockABI: 7})})
		userns := sandbox.New(policy, sandbox.Options{Helper: buildCodewhale(b, base),
			Probe: func() sandbox.Caps { return sandbox.Caps{LandlockABI: 7, UserNS: true} }})
		vs = append(vs, variant{"landlock-userns", userns}, variant{"landlock-userns-netdeny", userns.WithPolicy(deny)})
	}
	if bw, err := exec.LookPath("bwrap"); err == nil {
		vs = append(vs, variant{"bwrap", with(policy, &sandbox.Caps{Bwrap: bw})})
	}
	type runner struct {
		reg   *tools.Registry
		total time.Duration
	}
	rs := make([]*runner, len(vs))
	for i, v := range vs {
		m, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", Sandbox: v.sb})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		reg := tools.NewRegistry()
		reg.Register(New(Options{Jobs: m}))
		rs[i] = &runner{reg: reg}
	}
	tc := &tools.Context{Workspace: ws}
	in := json.RawMessage(`{"command":"echo hi"}`)
	n := 0
	for b.Loop() {
		n++
		for _, r := range rs {
			start := time.Now()
			res, err := r.reg.Execute(context.Background(), tc, "Bash", in)
			r.total += time.Since(start)
			if err != nil || res.Content != "hi\n" {
				b.Fatalf("%+v %v", res, err)
			}
		}
	}
	for i, v := range vs {
		b.ReportMetric(float64(rs[i].total.Microseconds())/1000/float64(n), v.name+"-ms/op")
	}
}

// buildCodewhale builds the codewhale binary into dir, as the helper the
// user-namespace variant re-executes.
func buildCodewhale(b *testing.B, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "codewhale")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/codewhale/codewhale/cmd/codewhale").CombinedOutput()
	if err != nil {
		b.Fatalf("building codewhale: %v\n%s", err, out)
	}
	return bin
}
