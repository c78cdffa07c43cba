package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// BenchmarkStartTrue starts /bin/true under each way this system confines
// and waits for it, the ways interleaved in every iteration; each reports
// its own ms/op. "userns-helper" is the per-command helper (a command with
// a context still takes it), "userns-spawner" the spawner that replaced it
// for every other command; the test binary serves as the helper for both,
// so their difference is the route, not the binary.
func BenchmarkStartTrue(b *testing.B) {
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	p := DefaultPolicy(Defaults{Mode: WorkspaceWrite, Workspace: ws, Network: true})
	sys := probeSystem("", "")
	if sys.LandlockABI == 0 {
		e2e.Missing(b, "Landlock is not available")
	}
	userns := New(p, Options{Helper: os.Args[0], Probe: func() Caps { return Caps{LandlockABI: sys.LandlockABI, UserNS: true} }})
	type variant struct {
		name    string
		sb      *Sandbox
		context bool
		total   time.Duration
	}
	vs := []*variant{{name: "off"}, {name: "landlock-carving", sb: New(p, fixedCaps(Caps{LandlockABI: sys.LandlockABI}))},
		{name: "userns-spawner", sb: userns}, {name: "userns-helper", sb: userns, context: true}}
	if sys.MountNS {
		vs = append(vs, &variant{name: "landlock-mountns", sb: New(p, fixedCaps(Caps{LandlockABI: sys.LandlockABI, MountNS: true}))})
	}
	n := 0
	for b.Loop() {
		n++
		for _, v := range vs {
			cmd := exec.Command("/bin/true")
			if v.context {
				cmd = exec.CommandContext(context.Background(), "/bin/true")
			}
			cmd.Dir = ws
			start := time.Now()
			proc, err := v.sb.Start(cmd)
			if err == nil {
				err = proc.Wait()
			}
			v.total += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
		}
	}
	for _, v := range vs {
		b.ReportMetric(float64(v.total.Microseconds())/1000/float64(n), v.name+"-ms/op")
	}
}
