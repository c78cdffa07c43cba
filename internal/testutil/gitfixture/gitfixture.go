// Package gitfixture builds real git repositories with the git CLI for the
// differential tests that compare codewhale's Git and File patch actions
// with git itself (and finds the repository a differential run points at).
// A missing git binary skips the test through e2e.Missing.
package gitfixture

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// Repo is a repository in a temp dir. Commits get distinct, increasing
// dates so that log order is defined.
type Repo struct {
	T     testing.TB
	Dir   string
	Bin   string
	clock int
}

// Git returns the git binary, or skips (fails in CI) without one.
func Git(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		e2e.Missing(t, "git is not installed")
	}
	return bin
}

// TempDir is t.TempDir with symbolic links resolved, as the workspace
// boundary sees it.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// New initialises an empty repository on branch main with a fixed
// identity and no user or system configuration.
func New(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{T: t, Dir: TempDir(t), Bin: Git(t)}
	r.Run("init", "-q", "-b", "main")
	for _, kv := range [][2]string{{"user.name", "Ada Lovelace"}, {"user.email", "ada@example.com"},
		{"core.autocrlf", "false"}, {"commit.gpgsign", "false"}} {
		r.Run("config", kv[0], kv[1])
	}
	return r
}

// Env is the environment every git command of a fixture runs with: no
// system or global configuration, dates from the fixture's clock.
func (r *Repo) Env() []string {
	date := fmt.Sprintf("%d +0200", 1700000000+r.clock*3700)
	return append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0")
}

// Run runs git in the repository and returns stdout; a failure ends the test.
func (r *Repo) Run(args ...string) string {
	r.T.Helper()
	out, err := r.RunIn(r.Dir, args...)
	if err != nil {
		r.T.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// RunIn runs git in dir and returns stdout, or an error with stderr.
func (r *Repo) RunIn(dir string, args ...string) (string, error) {
	cmd := exec.Command(r.Bin, args...)
	cmd.Dir = dir
	cmd.Env = r.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

// Write writes a file (creating its directories) with mode 0644.
func (r *Repo) Write(rel, content string) {
	r.T.Helper()
	p := r.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Path is rel's absolute path in the repository.
func (r *Repo) Path(rel string) string { return filepath.Join(r.Dir, filepath.FromSlash(rel)) }

// Remove deletes a file or directory tree.
func (r *Repo) Remove(rel string) {
	r.T.Helper()
	if err := os.RemoveAll(r.Path(rel)); err != nil {
		r.T.Fatal(err)
	}
}

// Symlink makes (or replaces) a symbolic link rel pointing at target.
func (r *Repo) Symlink(target, rel string) {
	r.T.Helper()
	_ = os.Remove(r.Path(rel))
	if err := os.Symlink(target, r.Path(rel)); err != nil {
		r.T.Fatal(err)
	}
}

// Chmod sets a file's permission bits.
func (r *Repo) Chmod(rel string, mode os.FileMode) {
	r.T.Helper()
	if err := os.Chmod(r.Path(rel), mode); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits with the next date; it returns the
// new commit's name.
func (r *Repo) Commit(msg string) string {
	r.T.Helper()
	r.Run("add", "-A")
	return r.CommitStaged(msg)
}

// CommitStaged commits the index with the next date.
func (r *Repo) CommitStaged(msg string) string {
	r.T.Helper()
	r.Tick()
	r.Run("commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(r.Run("rev-parse", "HEAD"))
}

// Tick advances the fixture's clock (for a merge or tag made by hand).
func (r *Repo) Tick() { r.clock++ }

// As runs fn with a different author for the commits it makes, then
// restores the fixture's identity.
func (r *Repo) As(name, email string, fn func()) {
	r.T.Helper()
	r.Run("config", "user.name", name)
	r.Run("config", "user.email", email)
	fn()
	r.Run("config", "user.name", "Ada Lovelace")
	r.Run("config", "user.email", "ada@example.com")
}

// At is the fixture working in dir (a linked worktree of it) for test t,
// with the same git binary and the clock where it stands now.
func (r *Repo) At(t testing.TB, dir string) *Repo {
	c := *r
	c.T, c.Dir = t, dir
	return &c
}

// Commits lists the commits reachable from rev, oldest first, following
// first parents only (so consecutive entries are a commit and its first
// parent); max > 0 keeps the newest max.
func (r *Repo) Commits(rev string, max int) []string {
	r.T.Helper()
	args := []string{"rev-list", "--first-parent"}
	if max > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", max))
	}
	out := strings.Fields(r.Run(append(args, rev)...))
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// AllCommits lists every commit reachable from rev (merges and side
// branches included), oldest first; max > 0 keeps the newest max.
func (r *Repo) AllCommits(rev string, max int) []string {
	r.T.Helper()
	args := []string{"rev-list", "--topo-order", "--reverse"}
	out := strings.Fields(r.Run(append(args, rev)...))
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// Clone makes a full clone of src (any repository on disk) in a temp dir,
// with the fixture's configuration, and checks out its HEAD. It clones
// through git's transport (--no-local), which reads one consistent
// snapshot: copying object files races a gc running in the source.
func Clone(t testing.TB, src string) *Repo {
	t.Helper()
	dir := TempDir(t)
	r := &Repo{T: t, Dir: filepath.Join(dir, "clone"), Bin: Git(t)}
	if _, err := r.RunIn(dir, "clone", "-q", "--no-local", src, r.Dir); err != nil {
		t.Fatalf("clone %s: %v", src, err)
	}
	for _, kv := range [][2]string{{"user.name", "Ada Lovelace"}, {"user.email", "ada@example.com"},
		{"core.autocrlf", "false"}, {"advice.detachedHead", "false"}} {
		r.Run("config", kv[0], kv[1])
	}
	return r
}

// Worktree adds a detached linked worktree at rev and returns its path.
func (r *Repo) Worktree(rev string) string {
	r.T.Helper()
	wt := filepath.Join(TempDir(r.T), "wt")
	r.Run("worktree", "add", "-q", "--detach", wt, rev)
	return wt
}

// EmptyTree writes git's empty tree into the object store (git knows its
// name but not every command reads it without the object) and returns it.
func (r *Repo) EmptyTree() string {
	r.T.Helper()
	return strings.TrimSpace(r.Run("hash-object", "-t", "tree", "-w", os.DevNull))
}

// IsRepo reports whether dir is a git repository (a checkout, a linked
// worktree or a bare git directory).
func IsRepo(t testing.TB, dir string) bool {
	t.Helper()
	cmd := exec.Command(Git(t), "-C", dir, "rev-parse", "--git-dir")
	return cmd.Run() == nil
}
