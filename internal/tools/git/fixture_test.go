package git

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// fixture is a real repository built with the git CLI in a temp dir.
// Commits get distinct, increasing dates so that log order is defined.
type fixture struct {
	t     testing.TB
	dir   string
	bin   string
	clock int
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: canonicalTemp(t), bin: requireGit(t)}
	f.git("init", "-q", "-b", "main")
	f.git("config", "user.name", "Ada Lovelace")
	f.git("config", "user.email", "ada@example.com")
	f.git("config", "core.autocrlf", "false")
	f.git("config", "commit.gpgsign", "false")
	return f
}

// requireGit returns the git binary, or skips (fails in CI) without one.
func requireGit(t testing.TB) string { return gitfixture.Git(t) }

// canonicalTemp is t.TempDir with symlinks resolved, as the workspace
// boundary would see it.
func canonicalTemp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// git runs git in the repository and returns stdout; failure stops the test.
func (f *fixture) git(args ...string) string {
	f.t.Helper()
	out, err := f.gitIn(f.dir, args...)
	if err != nil {
		f.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (f *fixture) gitIn(dir string, args ...string) (string, error) {
	cmd := exec.Command(f.bin, args...)
	cmd.Dir = dir
	date := fmt.Sprintf("%d +0200", 1700000000+f.clock*3700)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), nil
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.dir, filepath.FromSlash(rel))); err != nil {
		f.t.Fatal(err)
	}
}

// commit stages everything and commits with the next date.
func (f *fixture) commit(msg string) string {
	f.t.Helper()
	f.git("add", "-A")
	return f.commitStaged(msg)
}

func (f *fixture) commitStaged(msg string) string {
	f.t.Helper()
	f.clock++
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(f.git("rev-parse", "HEAD"))
}

// as runs fn with a different author for the commits it makes.
func (f *fixture) as(name, email string, fn func()) {
	f.git("config", "user.name", name)
	f.git("config", "user.email", email)
	fn()
	f.git("config", "user.name", "Ada Lovelace")
	f.git("config", "user.email", "ada@example.com")
}

const goSource = `package demo

import "fmt"

// Greeter says hello.
type Greeter struct {
	Name string
}

func (g Greeter) Hello() string {
	msg := "hello"
	if g.Name != "" {
		msg += ", " + g.Name
	}
	return msg
}

func helper(n int) int {
	total := 0
	for i := 0; i < n; i++ {
		total += i
	}
	return total
}

func main() {
	fmt.Println(Greeter{Name: "x"}.Hello(), helper(3))
}
`

// historyFixture builds a repository with the histories the tests read:
// edits inside functions, a rename with an edit, a deletion, a binary file,
// an executable bit, non-ASCII and spaced names, a second author, a merge
// of a side branch, an annotated tag and an upstream that has diverged
// (ahead 2, behind 1).
func historyFixture(t testing.TB) *fixture {
	f := newFixture(t)
	f.write("demo.go", goSource)
	f.write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\n")
	f.write("docs/old name.txt", strings.Repeat("rename me please\n", 8))
	f.write("gone.txt", "to be deleted\n")
	f.write("data.bin", "\x00\x01\x02binary\x00")
	f.write("ünïcødé/файл.txt", "привет\n")
	f.write("run.sh", "#!/bin/sh\necho hi\n")
	f.write("tab\tand \"quote\".txt", "odd name\n")
	f.write("becomes-link", "a regular file for now\n")
	if err := os.Symlink("demo.go", filepath.Join(f.dir, "link-to-demo")); err != nil {
		t.Fatal(err)
	}
	f.commit("Initial import\n\nWith a body line.")
	f.write("demo.go", strings.Replace(goSource, "total += i", "total += i * 2", 1))
	f.git("mv", "docs/old name.txt", "docs/new-name.txt")
	f.write("docs/new-name.txt", strings.Repeat("rename me please\n", 8)+"one more line\n")
	f.remove("gone.txt")
	f.write("data.bin", "\x00\x01\x03binary!\x00")
	if err := os.Chmod(filepath.Join(f.dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.commit("Rename, delete and edit")
	f.git("tag", "-a", "v1.0", "-m", "Release 1.0")
	f.git("checkout", "-q", "-b", "side")
	f.as("Grace Hopper", "grace@example.com", func() {
		f.write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\nStep three.\n")
		f.commit("Side: extend the guide")
	})
	f.git("checkout", "-q", "main")
	f.write("demo.go", strings.Replace(strings.Replace(goSource, "total += i", "total += i * 2", 1), `msg := "hello"`, `msg := "hi"`, 1))
	f.commit("Main: shorter greeting")
	f.clock++
	f.git("merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")
	f.write("ünïcødé/файл.txt", "привет\nмир\n")
	f.write("tab\tand \"quote\".txt", "odd name\nsecond line\n")
	f.commit("Touch the unicode file")
	f.setUpstream()
	return f
}

// setUpstream points origin/main at a commit on a line that forked from
// HEAD~2, so main is ahead 2 and behind 1.
func (f *fixture) setUpstream() {
	f.git("checkout", "-q", "-b", "tmp-upstream", "HEAD~2")
	f.write("upstream.txt", "only upstream\n")
	up := f.commit("Upstream-only change")
	f.git("checkout", "-q", "main")
	f.git("branch", "-q", "-D", "tmp-upstream")
	f.git("config", "remote.origin.url", "https://example.invalid/repo.git")
	f.git("config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
	f.git("update-ref", "refs/remotes/origin/main", up)
	f.git("branch", "-q", "--set-upstream-to=origin/main")
}

// dirtyWorktree adds every kind of uncommitted state status reports.
func (f *fixture) dirtyWorktree() {
	f.write("demo.go", strings.Replace(goSource, "return total", "return total + 1", 1))
	f.write("staged.txt", "new and staged\n")
	f.git("add", "staged.txt")
	if err := os.MkdirAll(filepath.Join(f.dir, "tools"), 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.git("mv", "run.sh", "tools/run.sh")
	f.remove("docs/guide.md")
	f.git("rm", "-q", "--cached", "data.bin")
	f.write("untracked dir/a.txt", "a\n")
	f.write("untracked dir/nested/b.txt", "b\n")
	f.write("only-ignored/x.log", "log\n")
	f.write(".gitignore", "*.log\n")
	f.write("notes.log", "ignored\n")
	f.write("spaced name.txt", "s\n")
	f.write("ünïcødé/новый.txt", "n\n")
	f.write("intent.txt", "intent\n")
	f.git("add", "-N", "intent.txt")
	f.write("docs/new-name.txt", "rewritten entirely\n")
	f.write("ünïcødé/файл.txt", "changed\n")
	f.git("add", "ünïcødé/файл.txt")
	f.write("ünïcødé/файл.txt", "changed again\n")
	f.write("added-then-deleted.txt", "x\n")
	f.git("add", "added-then-deleted.txt")
	f.remove("added-then-deleted.txt")
	f.remove("becomes-link")
	if err := os.Symlink("docs", filepath.Join(f.dir, "becomes-link")); err != nil {
		f.t.Fatal(err)
	}
	f.write("tab\tand \"quote\".txt", "odd name\nchanged\n")
	f.write("new\tuntracked \\ name.txt", "u\n")
}

// stagedRename stages a rename with an edit (an inexact rename) and a
// copy-like addition.
func (f *fixture) stagedRename() {
	f.git("mv", "demo.go", "lib-demo.go")
	f.write("lib-demo.go", strings.Replace(goSource, "package demo", "package lib", 1))
	f.git("add", "lib-demo.go")
}
