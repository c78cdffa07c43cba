package sandbox

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// The refusals real programs print under the sandbox are explained with
// the path that was refused.
// README.md "Sandbox": a refused command gets a [sandbox] note naming the path and why.
func TestExplainNamesTheRefusedPath(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			cases := []struct {
				script, reason, path string
			}{
				{`echo x > "$C/new.txt"`, "outside_writable_roots", "outside/new.txt"},
				{`touch "$C/t"`, "outside_writable_roots", "outside/t"},
				{`mkdir "$C/d"`, "outside_writable_roots", "outside/d"},
				{`python3 -c 'open("` + w.canary + `/p.txt", "w")'`, "outside_writable_roots", "outside/p.txt"},
				{`echo x > "$W/.git/config"`, "protected_path", "ws/.git/config"},
				{`git add file.txt`, "protected_path", "ws/.git/index.lock"},
				{`echo x > .codewhale/config.toml`, "protected_path", "ws/.codewhale/config.toml"},
				{`echo x > "$H/config.toml"`, "outside_writable_roots", "home/config.toml"},
				{`exit 3`, "", ""},
				{`ls /nonexistent-dir`, "", ""},
			}
			if !v.rootEntries {
				cases = append(cases, struct{ script, reason, path string }{`echo x > newtop.txt`, "workspace_root_entry", "ws/newtop.txt"})
			}
			for _, c := range cases {
				if strings.HasPrefix(c.script, "python3") {
					if _, err := exec.LookPath("python3"); err != nil {
						continue
					}
				}
				out, ok := run(t, sb, w.ws, c.script, "C="+w.canary, "W="+w.ws, "H="+w.home)
				if ok {
					t.Fatalf("%q succeeded", c.script)
				}
				d := sb.Explain(out, w.ws)
				switch {
				case c.reason == "" && d != nil:
					t.Errorf("%q: blamed the sandbox for %q: %+v", c.script, out, d)
				case c.reason != "" && (d == nil || d.Reason != c.reason || !strings.HasSuffix(d.Path, c.path)):
					t.Errorf("%q: output %q explained as %+v, want %s %s", c.script, out, d, c.reason, c.path)
				case d != nil && !strings.Contains(d.Note, d.Path):
					t.Errorf("%q: the note does not name the path: %s", c.script, d.Note)
				}
			}
		})
	}
}

func TestExplainUnderReadOnly(t *testing.T) {
	w := newWorld(t)
	sb := New(w.policy(ReadOnly, false), Options{})
	if !sb.Status().Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available")
	}
	out, ok := run(t, sb, w.ws, `echo x > sub/a.txt`)
	if ok {
		t.Fatal("write succeeded under read-only")
	}
	if d := sb.Explain(out, w.ws); d == nil || d.Reason != "read_only" || d.Path != filepath.Join(w.ws, "sub", "a.txt") {
		t.Fatalf("explained %q as %+v", out, d)
	}
}

// Unenforced means unenforced: the status says so and nothing is blocked
// (so the canary check above is not vacuous).
// README.md "Sandbox": an unenforced sandbox says so in every report.
func TestUnenforcedSaysSoAndBlocksNothing(t *testing.T) {
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, false), fixedCaps(Caps{Why: "Landlock is not available (test) and bubblewrap is not installed"}))
	st := sb.Status()
	if st.Enforced || st.Mechanism != None || st.Scope() != "files: workspace (unenforced)" ||
		!strings.Contains(st.Label(), "unenforced: Landlock is not available (test)") || st.NetworkBlocked() {
		t.Fatalf("status %+v label %q scope %q", st, st.Label(), st.Scope())
	}
	before := tree(t, w.canary)
	if out, ok := run(t, sb, w.ws, `echo x > "$C/new.txt"`, "C="+w.canary); !ok {
		t.Fatalf("an unenforced sandbox refused: %s", out)
	}
	if _, same := sameTree(before, tree(t, w.canary)); same {
		t.Fatal("the canary check did not see the write")
	}
	if d := sb.Explain("sh: cannot create /x: Permission denied", w.ws); d != nil {
		t.Fatalf("an unenforced sandbox explained a denial: %+v", d)
	}
}

// A write refused in a build cache that does not exist yet says so (and
// what to do), rather than only that it is outside the writable roots.
// README.md "Sandbox": a cache it could not create stays read-only and the refusal's note names it.
func TestExplainNamesAMissingCache(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			p := w.policy(WorkspaceWrite, true)
			cache := filepath.Join(w.base, "user", ".cache", "go-build")
			p.Caches = []string{cache}
			sb := New(p, v.options())
			out, ok := run(t, sb, w.ws, `mkdir -p "$G/00"`, "G="+cache)
			if ok {
				t.Fatalf("a missing cache was created: %s", out)
			}
			d := sb.Explain(out, w.ws)
			if d == nil || d.Reason != "outside_writable_roots" || !strings.Contains(d.Note, "on the way to the build cache "+cache+
				", which did not exist when the command started") {
				t.Fatalf("output %q explained as %+v", out, d)
			}
			// An existing directory above the cache is not "on the way".
			out, _ = run(t, sb, w.ws, `rm -rf "$B/outside"`, "B="+w.base)
			if d := sb.Explain(out, w.ws); d == nil || strings.Contains(d.Note, "build cache") {
				t.Fatalf("output %q explained as %+v", out, d)
			}
		})
	}
}
