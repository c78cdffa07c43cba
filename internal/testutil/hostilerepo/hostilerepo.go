// Package hostilerepo builds a git repository whose configuration and hooks
// try to run programs on every ordinary read — core.fsmonitor, diff.external,
// a diff driver's command and textconv, a filter driver's clean, smudge and
// process, core.pager, gpg.program under log.showSignature, core.sshCommand,
// credential.helper and every hook — each a stand-in script that only
// leaves a marker file. Tests run the agent's git against it and assert
// that no marker appears (issue 11 §2).
package hostilerepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// Repo is the hostile repository and the directory its stand-ins mark.
type Repo struct {
	*gitfixture.Repo
	Markers string
}

// planted are the configuration keys set to a marking stand-in.
var planted = []string{"core.fsmonitor", "diff.external", "diff.evil.command", "diff.evil.textconv",
	"filter.evil.clean", "filter.evil.smudge", "filter.evil.process", "core.pager", "pager.log", "pager.diff",
	"gpg.program", "gpg.ssh.program", "core.sshCommand", "core.editor", "sequence.editor", "core.askPass",
	"credential.helper", "core.alternateRefsCommand", "uploadpack.packObjectsHook"}

// hooks are planted in .git/hooks.
var hooks = []string{"pre-commit", "post-checkout", "post-index-change", "reference-transaction", "post-rewrite",
	"pre-auto-gc", "fsmonitor-watchman", "push-to-checkout"}

// New builds the repository: two commits of files under a .gitattributes
// that routes every file through the evil diff and filter drivers, a dirty
// work tree with a stale stat (so status must look at contents), then the
// planted configuration and hooks.
func New(t testing.TB) *Repo {
	t.Helper()
	g := gitfixture.New(t)
	r := &Repo{Repo: g, Markers: t.TempDir()}
	g.Write(".gitattributes", "* diff=evil filter=evil\n")
	g.Write("a.txt", "one\ntwo\n")
	g.Write("b.go", "package b\n")
	g.Commit("first")
	g.Write("a.txt", "one\ntwo\nthree\n")
	g.Commit("second")
	g.Write("a.txt", "one\nTWO\nthree\n")
	old := mustStat(t, filepath.Join(g.Dir, "b.go")).ModTime().AddDate(-1, 0, 0)
	if err := os.Chtimes(filepath.Join(g.Dir, "b.go"), old, old); err != nil {
		t.Fatal(err)
	}
	for _, key := range planted {
		g.Run("config", key, r.standIn(t, key))
	}
	g.Run("config", "log.showSignature", "true")
	g.Run("config", "filter.evil.required", "true")
	for _, h := range hooks {
		p := filepath.Join(g.Dir, ".git", "hooks", h)
		writeScript(t, p, "#!/bin/sh\ntouch '"+filepath.Join(r.Markers, "hook-"+h)+"'\n")
	}
	return r
}

// standIn writes a script that marks name and passes stdin through (so a
// filter or pager would still "work").
func (r *Repo) standIn(t testing.TB, name string) string {
	p := filepath.Join(r.Markers, "bin", name+".sh")
	writeScript(t, p, "#!/bin/sh\ntouch '"+filepath.Join(r.Markers, name)+"'\ncat\n")
	return p
}

func writeScript(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustStat(t testing.TB, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// Ran lists the stand-ins that ran (their markers), sorted.
func (r *Repo) Ran() []string {
	entries, _ := os.ReadDir(r.Markers)
	var out []string
	for _, e := range entries {
		if e.Name() != "bin" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// AssertNothingRan fails t when any stand-in left its marker.
func (r *Repo) AssertNothingRan(t testing.TB, what string) {
	t.Helper()
	if ran := r.Ran(); len(ran) > 0 {
		t.Errorf("%s ran planted programs: %v", what, ran)
	}
}

// ProveHostile runs plain git (no safe configuration) over the repository and
// checks that the plants do fire, so a test that then sees no marker proves
// something. It clears the markers afterwards.
func (r *Repo) ProveHostile(t testing.TB) {
	t.Helper()
	for _, args := range [][]string{{"status"}, {"diff"}, {"log", "-p", "-1"}} {
		cmd := exec.Command(r.Bin, args...)
		cmd.Dir, cmd.Env = r.Dir, r.Env()
		_ = cmd.Run()
	}
	if len(r.Ran()) == 0 {
		t.Fatal("plain git ran none of the planted programs: the fixture proves nothing")
	}
	for _, m := range r.Ran() {
		_ = os.Remove(filepath.Join(r.Markers, m))
	}
}
