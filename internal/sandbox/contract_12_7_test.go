//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// CONTRACT.md §12.7: what the running kernel cannot enforce is never reported as enforced, and missing signal
// scoping (Landlock below ABI 6) is warned of by codewhale doctor (Status.Degraded) — also where another limit
// (protected paths carved around, without a mount namespace) degrades the same confinement.
// README.md "Sandbox": below Landlock ABI 6 signals and abstract sockets are not scoped, and doctor says so.
func TestContract12_7DoctorWarnsOfMissingSignalScoping(t *testing.T) {
	t.Parallel()
	const signals, carved = "cannot scope signals (ABI 6 is needed)", "protected paths are kept read-only by granting writes"
	for _, c := range []struct {
		name       string
		mode       Mode
		caps       Caps
		signals    bool
		carvedWarn bool
	}{
		{"abi 5 carved", WorkspaceWrite, Caps{LandlockABI: 5}, true, true},
		{"abi 5 mount namespace", WorkspaceWrite, Caps{LandlockABI: 5, MountNS: true}, true, false},
		{"abi 5 read-only", ReadOnly, Caps{LandlockABI: 5}, true, false},
		{"abi 6 carved", WorkspaceWrite, Caps{LandlockABI: 6}, false, true},
		{"abi 7 mount namespace", WorkspaceWrite, Caps{LandlockABI: 7, MountNS: true}, false, false},
	} {
		st := New(Policy{Mode: c.mode, Workspace: "/ws", Network: true}, fixedCaps(c.caps)).Status()
		if got := strings.Contains(st.Degraded, signals); got != c.signals {
			t.Errorf("%s: doctor's warning %q names missing signal scoping: %v, want %v", c.name, st.Degraded, got, c.signals)
		}
		if got := strings.Contains(st.Degraded, carved); got != c.carvedWarn {
			t.Errorf("%s: doctor's warning %q names the carving: %v, want %v", c.name, st.Degraded, got, c.carvedWarn)
		}
		if scoped := strings.Contains(st.Detail, "signals and abstract sockets scoped"); scoped == c.signals {
			t.Errorf("%s: detail %q reports scoping the kernel does not enforce", c.name, st.Detail)
		}
		if c.signals && !strings.Contains(st.Report(), "Not covered: Landlock ABI 5 "+signals) {
			t.Errorf("%s: /status does not list the missing scoping:\n%s", c.name, st.Report())
		}
	}
}

// CONTRACT.md §12.7: an enforced sandbox refuses writes outside the writable roots and to the protected paths, in
// every confinement this system can build — also by way of a hard link made in the workspace to a file outside it
// or to a protected one, and by renaming a file out of them.
func TestContract12_7HardLinksCarryNoWriteOut(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			if st := sb.Status(); !st.Enforced {
				t.Fatalf("status %+v", st)
			}
			watched := []string{w.canary, w.ws + "/.git", w.ws + "/.codewhale", w.home}
			before := map[string]map[string]string{}
			for _, d := range watched {
				before[d] = tree(t, d)
			}
			env := []string{"C=" + w.canary, "W=" + w.ws, "H=" + w.home, "A=" + strconv.Itoa(os.Getpid())}
			for _, script := range []string{
				`ln "$C/keep.txt" "$W/sub/hl" && echo pwned >> "$W/sub/hl"`,
				`ln "$C/dir/deep.txt" "$W/sub/hl2"; echo pwned > "$W/sub/hl2"`,
				`ln "$H/config.toml" "$W/sub/cfg" && echo pwned >> "$W/sub/cfg"`,
				`ln "$W/.codewhale/config.toml" "$W/sub/proj" && echo pwned >> "$W/sub/proj"`,
				`ln "$W/.git/hooks/README" "$W/sub/hook" && echo pwned >> "$W/sub/hook"`,
				`mv "$C/keep.txt" "$W/sub/"`,
				`mv "$W/.codewhale/config.toml" "$W/sub/"`,
			} {
				out, _ := run(t, sb, w.ws, script, env...)
				for _, d := range watched {
					if diff, ok := sameTree(before[d], tree(t, d)); !ok {
						t.Fatalf("%q changed %s: %s\noutput: %s", script, d, diff, out)
					}
				}
			}
		})
	}
}
