package file

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// TestIgnoreMatchesGit walks a real repository and compares the files it
// lets through with `git ls-files -co --exclude-standard`.
func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	t.Parallel()
	e := newEnv(t, Options{})
	if out, err := exec.Command("git", "-C", e.ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	e.put(".git/info/exclude", "secret/\n")
	e.put(".gitignore", "*.tmp\n/root-only.txt\nbuild/\n!keep.tmp\n**/deep/*.log\ndoc/**/*.md\n")
	for _, f := range []string{"a.go", "x.tmp", "keep.tmp", "root-only.txt", "sub/root-only.txt", "build/out.o",
		"sub/build/out.o", "secret/key", "sub/deep/a.log", "sub/deep/a.txt", "doc/x/y.md", "doc/readme.txt",
		"sub/.gitignore", "sub/local.txt", "sub/inner/local.txt", "sub/inner/other.txt", "caf\xe9.txt"} {
		e.put(f, "x\n")
	}
	e.put("sub/.gitignore", "local.txt\n!inner/local.txt\n")

	var got []string
	spec := walkSpec{fs: confine.NewSet(e.ws), base: e.ws, ign: ignoreFor(e.ws, e.ws)}
	err := walk(context.Background(), spec, func(f walkFile) bool {
		got = append(got, f.rel)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	out, err := exec.Command("git", "-C", e.ws, "-c", "core.quotePath=false", "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walk:\n%q\ngit:\n%q", got, want)
	}
}

// In a linked worktree (.git is a file) info/exclude is read from the
// repository's common dir, as git does.
func TestIgnoreInLinkedWorktreeMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	t.Parallel()
	main := newEnv(t, Options{})
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git(main.ws, "init", "-q")
	main.put("a.go", "x\n")
	git(main.ws, "add", ".")
	git(main.ws, "commit", "-q", "-m", "init")
	main.put(".git/info/exclude", "secret/\n")
	wt := filepath.Join(t.TempDir(), "wt")
	git(main.ws, "worktree", "add", "-q", wt)
	for _, f := range []string{"b.go", "secret/key"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(wt, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wt, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := walk(context.Background(), walkSpec{fs: confine.NewSet(wt), base: wt, ign: ignoreFor(wt, wt)}, func(f walkFile) bool {
		got = append(got, f.rel)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	out, err := exec.Command("git", "-C", wt, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walk:\n%q\ngit:\n%q", got, want)
	}
}
