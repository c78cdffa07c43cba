package sandbox

import (
	"strings"
	"testing"
)

// Status says what stays open between a command and the processes and
// unix sockets outside, by Landlock ABI and network policy: no scoping
// below ABI 6 (a doctor warning), unix sockets refused by the seccomp
// filter below ABI 9 with the network denied, by Landlock from ABI 9.
func TestStatusSaysWhatIPCIsOpen(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		abi      int
		network  bool
		limit    string // a substring of one of Limits, "" for none about sockets
		degraded string
	}{
		{"abi 5 allowed", 5, true, "unix sockets outside the writable roots (Docker's", "cannot scope signals (ABI 6 is needed): a command can signal any process of yours, codewhale included (kill -STOP), and connect to abstract unix sockets"},
		{"abi 5 denied", 5, false, "cannot create unix sockets", "codewhale included (kill -STOP)"},
		{"abi 7 allowed", 7, true, "Landlock restricts them from ABI 9", ""},
		{"abi 7 denied", 7, false, "with the network denied a command cannot create unix sockets (a seccomp filter", ""},
		{"abi 9 allowed", 9, true, "", ""},
		{"abi 9 denied", 9, false, "", ""},
	}
	for _, c := range cases {
		p := Policy{Mode: WorkspaceWrite, Workspace: "/ws", Network: c.network}
		st := New(p, fixedCaps(Caps{LandlockABI: c.abi, MountNS: true})).Status()
		report := st.Report()
		if c.limit != "" && !strings.Contains(report, "Not covered: ") || !strings.Contains(report, c.limit) {
			t.Errorf("%s: the report lacks %q:\n%s", c.name, c.limit, report)
		}
		if c.limit == "" && strings.Contains(report, "unix sockets") {
			t.Errorf("%s: the report names a socket limit Landlock closes:\n%s", c.name, report)
		}
		if !strings.Contains(st.Degraded, c.degraded) || c.degraded == "" && st.Degraded != "" {
			t.Errorf("%s: degraded %q, want %q", c.name, st.Degraded, c.degraded)
		}
		if scoped := strings.Contains(st.Detail, "signals and abstract sockets scoped"); scoped != (c.abi >= scopingABI) {
			t.Errorf("%s: detail %q", c.name, st.Detail)
		}
	}
	for network, want := range map[bool]string{true: "and abstract unix sockets can be connected to",
		false: "with the network denied a command cannot create unix sockets"} {
		bw := New(Policy{Mode: WorkspaceWrite, Network: network}, fixedCaps(Caps{Bwrap: "/usr/bin/bwrap"})).Status()
		if !strings.Contains(bw.Report(), want) {
			t.Errorf("bubblewrap's report (network %v) lacks %q:\n%s", network, want, bw.Report())
		}
	}
}
