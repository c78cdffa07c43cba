package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixedCaps injects the capabilities a test wants instead of probing.
func fixedCaps(c Caps) Options { return Options{Probe: func() Caps { return c }} }

// README.md "Sandbox": sandbox_mode is read-only, workspace-write (the default), danger-full-access or external-sandbox; an unknown value is an error naming the allowed ones.
func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"": WorkspaceWrite, "read-only": ReadOnly, " Workspace-Write ": WorkspaceWrite,
		"danger-full-access": FullAccess, "external-sandbox": External} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "read-only, workspace-write, danger-full-access") {
		t.Errorf("unknown mode error: %v", err)
	}
}

// README.md "Sandbox": the header chip and report: files: workspace (enforced) under Landlock or bwrap, files: workspace (unenforced) with neither, files: full disk for danger-full-access.
func TestStatusLabels(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: WorkspaceWrite, Workspace: "/ws", Network: true}
	cases := []struct {
		name     string
		policy   Policy
		caps     Caps
		scope    string
		label    string
		enforced bool
		network  string
	}{
		{"landlock", p, Caps{LandlockABI: 7}, "files: workspace (enforced)", "workspace-write (enforced: landlock; network allowed)", true, "allowed"},
		{"landlock deny", Policy{Mode: WorkspaceWrite, Network: false}, Caps{LandlockABI: 7}, "files: workspace (enforced)",
			"workspace-write (enforced: landlock; network blocked for TCP connect and bind", true, "blocked for TCP"},
		{"landlock+ns deny", Policy{Mode: WorkspaceWrite}, Caps{LandlockABI: 7, MountNS: true}, "files: workspace (enforced)",
			"workspace-write (enforced: landlock + mount namespace; network blocked (network namespace))", true, "blocked (network namespace)"},
		{"old landlock deny", Policy{Mode: WorkspaceWrite}, Caps{LandlockABI: 3}, "files: workspace (enforced)",
			"not blocked (Landlock ABI 3", true, "not blocked"},
		{"bwrap read-only", Policy{Mode: ReadOnly}, Caps{Bwrap: "/usr/bin/bwrap"}, "files: read-only (enforced)",
			"read-only (enforced: bwrap; network blocked (network namespace))", true, "blocked"},
		{"nothing", p, Caps{Why: "no backend"}, "files: workspace (unenforced)", "workspace-write (unenforced: no backend; commands run unconfined)", false, "allowed"},
		{"full", Policy{Mode: FullAccess}, Caps{LandlockABI: 7}, "files: full disk", "danger-full-access (no sandbox)", false, "allowed"},
		{"external", Policy{Mode: External}, Caps{}, "files: external sandbox", "external-sandbox (confinement left", false, "allowed"},
	}
	for _, c := range cases {
		st := New(c.policy, fixedCaps(c.caps)).Status()
		if st.Scope() != c.scope || !strings.Contains(st.Label(), c.label) || st.Enforced != c.enforced ||
			!strings.HasPrefix(st.Network, c.network) {
			t.Errorf("%s: %+v scope %q label %q", c.name, st, st.Scope(), st.Label())
		}
		if !strings.Contains(st.Report(), "Sandbox: "+string(c.policy.Mode)) {
			t.Errorf("%s: report %q", c.name, st.Report())
		}
	}
	var nilSB *Sandbox
	if st := nilSB.Status(); st.Mode != FullAccess || st.Enforced {
		t.Errorf("nil sandbox status %+v", st)
	}
}

// README.md "Sandbox": workspace-write writes the workspace, the temp dir, $CODEWHALE_HOME/tmp and writable_roots; .git, .codewhale, $CODEWHALE_HOME and the config stay read-only; listing .git itself leaves only config, config.worktree, hooks/ and modules/ read-only.
func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	ws := "/w"
	p := DefaultPolicy(Defaults{Mode: WorkspaceWrite, Workspace: ws, Home: "/h", Config: "/h/config.toml",
		TempDirs: []string{"/tmp"}, Writable: []string{"build/out", "/opt/cache"}})
	if !slices.Equal(p.WritableRoots, []string{"/h/tmp", "/tmp", "/w/build/out", "/opt/cache"}) ||
		!slices.Equal(p.Protected, []string{"/w/.git", "/w/.codewhale", "/h", "/h/config.toml"}) {
		t.Fatalf("policy %+v", p)
	}
	// Listing .git itself is the explicit approval of git writes; the parts
	// that run programs stay protected.
	p = DefaultPolicy(Defaults{Mode: WorkspaceWrite, Workspace: ws, Writable: []string{".git"}})
	want := []string{"/w/.git/config", "/w/.git/config.worktree", "/w/.git/hooks", "/w/.git/modules", "/w/.codewhale"}
	if !slices.Equal(p.Protected, want) || !slices.Contains(p.WritableRoots, filepath.Join(ws, ".git")) {
		t.Fatalf("git-approved policy %+v", p)
	}
}

// README.md "Sandbox": read-only also denies the network.
func TestWithModeReadOnlyBlocksNetwork(t *testing.T) {
	t.Parallel()
	sb := New(Policy{Mode: WorkspaceWrite, Network: true}, fixedCaps(Caps{LandlockABI: 7}))
	ro := sb.WithMode(ReadOnly)
	if ro.Policy().Network || ro.Policy().Mode != ReadOnly || sb.Policy().Mode != WorkspaceWrite {
		t.Fatalf("WithMode: %+v from %+v", ro.Policy(), sb.Policy())
	}
}
