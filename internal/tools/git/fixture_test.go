package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// fixture is a real repository built with the git CLI in a temp dir
// (gitfixture.Repo: distinct, increasing commit dates, so log order is
// defined).
type fixture struct{ *gitfixture.Repo }

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return &fixture{gitfixture.New(t)}
}

// requireGit returns the git binary, or skips (fails in CI) without one.
func requireGit(t testing.TB) string { return gitfixture.Git(t) }

// canonicalTemp is t.TempDir with symlinks resolved, as the workspace
// boundary would see it.
func canonicalTemp(t testing.TB) string { return gitfixture.TempDir(t) }

const goSource = gitfixture.GoSource

// historyFixture builds a repository with the histories the tests read:
// edits inside functions, a rename with an edit, a deletion, a binary file,
// an executable bit, non-ASCII and spaced names, a second author, a merge
// of a side branch, an annotated tag and an upstream that has diverged
// (ahead 2, behind 1).
func historyFixture(t testing.TB) *fixture {
	f := newFixture(t)
	f.Write("demo.go", goSource)
	f.Write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\n")
	f.Write("docs/old name.txt", strings.Repeat("rename me please\n", 8))
	f.Write("gone.txt", "to be deleted\n")
	f.Write("data.bin", "\x00\x01\x02binary\x00")
	f.Write("ünïcødé/файл.txt", "привет\n")
	f.Write("run.sh", "#!/bin/sh\necho hi\n")
	f.Write("tab\tand \"quote\".txt", "odd name\n")
	f.Write("becomes-link", "a regular file for now\n")
	if err := os.Symlink("demo.go", filepath.Join(f.Dir, "link-to-demo")); err != nil {
		t.Fatal(err)
	}
	f.Commit("Initial import\n\nWith a body line.")
	f.Write("demo.go", strings.Replace(goSource, "total += i", "total += i * 2", 1))
	f.Run("mv", "docs/old name.txt", "docs/new-name.txt")
	f.Write("docs/new-name.txt", strings.Repeat("rename me please\n", 8)+"one more line\n")
	f.Remove("gone.txt")
	f.Write("data.bin", "\x00\x01\x03binary!\x00")
	if err := os.Chmod(filepath.Join(f.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.Commit("Rename, delete and edit")
	f.Run("tag", "-a", "v1.0", "-m", "Release 1.0")
	f.Run("checkout", "-q", "-b", "side")
	f.As("Grace Hopper", "grace@example.com", func() {
		f.Write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\nStep three.\n")
		f.Commit("Side: extend the guide")
	})
	f.Run("checkout", "-q", "main")
	f.Write("demo.go", strings.Replace(strings.Replace(goSource, "total += i", "total += i * 2", 1), `msg := "hello"`, `msg := "hi"`, 1))
	f.Commit("Main: shorter greeting")
	f.Tick()
	f.Run("merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")
	f.Write("ünïcødé/файл.txt", "привет\nмир\n")
	f.Write("tab\tand \"quote\".txt", "odd name\nsecond line\n")
	f.Commit("Touch the unicode file")
	f.setUpstream()
	return f
}

// setUpstream points origin/main at a commit on a line that forked from
// HEAD~2, so main is ahead 2 and behind 1.
func (f *fixture) setUpstream() {
	f.Run("checkout", "-q", "-b", "tmp-upstream", "HEAD~2")
	f.Write("upstream.txt", "only upstream\n")
	up := f.Commit("Upstream-only change")
	f.Run("checkout", "-q", "main")
	f.Run("branch", "-q", "-D", "tmp-upstream")
	f.Run("config", "remote.origin.url", "https://example.invalid/repo.git")
	f.Run("config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
	f.Run("update-ref", "refs/remotes/origin/main", up)
	f.Run("branch", "-q", "--set-upstream-to=origin/main")
}

// dirtyWorktree adds every kind of uncommitted state status reports.
func (f *fixture) dirtyWorktree() {
	f.Write("demo.go", strings.Replace(goSource, "return total", "return total + 1", 1))
	f.Write("staged.txt", "new and staged\n")
	f.Run("add", "staged.txt")
	if err := os.MkdirAll(filepath.Join(f.Dir, "tools"), 0o755); err != nil {
		f.T.Fatal(err)
	}
	f.Run("mv", "run.sh", "tools/run.sh")
	f.Remove("docs/guide.md")
	f.Run("rm", "-q", "--cached", "data.bin")
	f.Write("untracked dir/a.txt", "a\n")
	f.Write("untracked dir/nested/b.txt", "b\n")
	f.Write("only-ignored/x.log", "log\n")
	f.Write(".gitignore", "*.log\n")
	f.Write("notes.log", "ignored\n")
	f.Write("spaced name.txt", "s\n")
	f.Write("ünïcødé/новый.txt", "n\n")
	f.Write("intent.txt", "intent\n")
	f.Run("add", "-N", "intent.txt")
	f.Write("docs/new-name.txt", "rewritten entirely\n")
	f.Write("ünïcødé/файл.txt", "changed\n")
	f.Run("add", "ünïcødé/файл.txt")
	f.Write("ünïcødé/файл.txt", "changed again\n")
	f.Write("added-then-deleted.txt", "x\n")
	f.Run("add", "added-then-deleted.txt")
	f.Remove("added-then-deleted.txt")
	f.Remove("becomes-link")
	if err := os.Symlink("docs", filepath.Join(f.Dir, "becomes-link")); err != nil {
		f.T.Fatal(err)
	}
	f.Write("tab\tand \"quote\".txt", "odd name\nchanged\n")
	f.Write("new\tuntracked \\ name.txt", "u\n")
}

// stagedRename stages a rename with an edit (an inexact rename) and a
// copy-like addition.
func (f *fixture) stagedRename() {
	f.Run("mv", "demo.go", "lib-demo.go")
	f.Write("lib-demo.go", strings.Replace(goSource, "package demo", "package lib", 1))
	f.Run("add", "lib-demo.go")
}
