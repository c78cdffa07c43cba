package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with one commit and a nested directory.
func newRepo(t *testing.T) (root, head string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	root, _ = filepath.EvalSymlinks(t.TempDir())
	git(t, root, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "first")
	return root, git(t, root, "rev-parse", "HEAD")
}

func TestOpenFromNestedDirAndFile(t *testing.T) {
	root, head := newRepo(t)
	for _, start := range []string{root, filepath.Join(root, "a", "b"), filepath.Join(root, "a", "b", "f.txt")} {
		r, err := Open(start)
		if err != nil {
			t.Fatalf("Open(%s): %v", start, err)
		}
		if r.Root != root || r.GitDir != filepath.Join(root, ".git") || r.CommonDir != r.GitDir {
			t.Fatalf("Open(%s) = root %q gitdir %q common %q", start, r.Root, r.GitDir, r.CommonDir)
		}
		ref, err := r.Reference(plumbing.HEAD, true)
		if err != nil || ref.Hash().String() != head {
			t.Fatalf("HEAD = %v, %v; want %s", ref, err, head)
		}
		c, err := r.CommitObject(ref.Hash())
		if err != nil || c.Message != "first\n" {
			t.Fatalf("commit = %v, %v", c, err)
		}
	}
}

func TestOpenLinkedWorktree(t *testing.T) {
	root, _ := newRepo(t)
	wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
	t.Cleanup(func() { os.RemoveAll(wt) })
	git(t, root, "worktree", "add", "-q", "-b", "side", wt)
	if err := os.WriteFile(filepath.Join(wt, "side.txt"), []byte("side\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, wt, "add", "side.txt")
	git(t, wt, "commit", "-q", "-m", "on side")
	sideHead := git(t, wt, "rev-parse", "HEAD")

	r, err := Open(filepath.Join(wt, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != wt || r.GitDir != filepath.Join(root, ".git", "worktrees", filepath.Base(wt)) || r.CommonDir != filepath.Join(root, ".git") {
		t.Fatalf("root %q gitdir %q common %q", r.Root, r.GitDir, r.CommonDir)
	}
	// HEAD is the worktree's own; the branch and the objects live in the common dir.
	ref, err := r.Reference(plumbing.HEAD, true)
	if err != nil || ref.Hash().String() != sideHead || ref.Name() != "refs/heads/side" {
		t.Fatalf("HEAD = %v, %v; want refs/heads/side at %s", ref, err, sideHead)
	}
	if c, err := r.CommitObject(ref.Hash()); err != nil || c.Message != "on side\n" {
		t.Fatalf("commit = %v, %v", c, err)
	}
}

func TestOpenGitFileWithRelativeGitdir(t *testing.T) {
	root, head := newRepo(t)
	outer := t.TempDir()
	if err := os.Rename(filepath.Join(root, ".git"), filepath.Join(outer, "store.git")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, filepath.Join(outer, "store.git"))
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(filepath.Join(root, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != root || r.GitDir != filepath.Join(outer, "store.git") {
		t.Fatalf("root %q gitdir %q", r.Root, r.GitDir)
	}
	if ref, err := r.Reference(plumbing.HEAD, true); err != nil || ref.Hash().String() != head {
		t.Fatalf("HEAD = %v, %v", ref, err)
	}

	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("not a pointer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(root); err == nil || errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), "gitdir") {
		t.Fatalf("a malformed .git file: %v", err)
	}
}

func TestOpenOutsideAnyRepository(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); !errors.Is(err, ErrNotExist) {
		t.Fatalf("Open(%s) = %v, want ErrNotExist", dir, err)
	}
	// A .git directory without HEAD is not a repository.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotExist) {
		t.Fatalf("empty .git: %v, want ErrNotExist", err)
	}
}

func TestRepositoryFormats(t *testing.T) {
	root, _ := newRepo(t)
	cfg := filepath.Join(root, ".git", "config") // edited as a file: git refuses extensions it does not know
	git(t, root, "config", "-f", cfg, "core.bare", "true")
	if r, err := Open(root); err != nil || r.Root != "" {
		t.Fatalf("core.bare: root %q, %v; want no worktree", r.Root, err)
	}
	git(t, root, "config", "-f", cfg, "core.bare", "false")

	// worktreeConfig changes nothing a reader sees (go-git's PlainOpen refused it).
	git(t, root, "config", "-f", cfg, "core.repositoryformatversion", "1")
	git(t, root, "config", "-f", cfg, "extensions.worktreeConfig", "true")
	if _, err := Open(root); err != nil {
		t.Fatalf("extensions.worktreeConfig: %v", err)
	}
	for _, c := range []struct{ key, value string }{
		{"extensions.objectformat", "sha256"},
		{"extensions.refstorage", "reftable"},
	} {
		git(t, root, "config", "-f", cfg, c.key, c.value)
		if _, err := Open(root); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s=%s: %v, want a refusal naming it", c.key, c.value, err)
		}
		git(t, root, "config", "-f", cfg, "--unset", c.key)
	}
	git(t, root, "config", "-f", cfg, "core.repositoryformatversion", "2")
	if _, err := Open(root); err == nil || !strings.Contains(err.Error(), "repositoryformatversion") {
		t.Fatalf("format version 2: %v", err)
	}
}
