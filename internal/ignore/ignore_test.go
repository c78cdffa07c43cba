package ignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
)

// fixture is a tree with every kind of ignore rule: nested .gitignore files
// with negations, anchored and "**" patterns, escapes and classes,
// info/exclude, a global excludes file named by core.excludesFile, .ignore
// and .rgignore (ripgrep's), and a nested repository.
var fixture = map[string]string{
	".gitignore": "*.log\n!keep.log\nbuild/\n/rootonly.txt\ndoc/**/*.pdf\na/**/b\n\\#hash\ntrail\\ \n[!a]x.tmp\n" +
		"**/deep/\nfoo/*\n!foo/bar\n*.o\n# comment\n\n  \nspace\\ name\nvendor\n!vendor/keep.go\n",
	"keep.log": "", "drop.log": "", "rootonly.txt": "", "sub/rootonly.txt": "", "build/x.c": "", "src/build": "",
	"doc/a/b/c.pdf": "", "doc/c.pdf": "", "a/x/y/b": "", "a/b": "", "#hash": "", "trail ": "", "ax.tmp": "",
	"bx.tmp": "", "q/deep/z.go": "", "foo/bar": "", "foo/baz": "", "m.o": "", "space name": "", "vendor/keep.go": "",
	"vendor/x.go": "", "info.txt": "", "sub/info.txt": "", "g.globalign": "", "sub/g.globalign": "",
	"sub/.gitignore": "!drop.log\n/local\n*.txt\n!info.txt\nnested/\n", "sub/drop.log": "", "sub/local": "",
	"sub/x/local": "", "sub/a.txt": "", "sub/nested/n.go": "", "sub/x/nested": "",
	".hidden/h.go": "", "src/main.go": "", "src/gen.tmp": "", "cx.tmp": "",
	"dot/.ignore": "*.dot\n!keep.dot\n", "dot/a.dot": "", "dot/keep.dot": "", "dot/.rgignore": "keep.dot\n",
	"dot/sub/b.dot": "", "dot/sub/.gitignore": "!b.dot\n",
	"inner/.gitignore": "inner.tmp\n", "inner/inner.tmp": "", "inner/m.o": "", "inner/ok.go": "",
}

func run(t *testing.T, dir, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	return string(out)
}

// setup builds the fixture in a git repository with a private HOME whose
// ~/.gitconfig names the global excludes file.
func setup(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	fstree.Write(t, home, map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/global-ignore\n", "global-ignore": "*.globalign\n"})
	root := t.TempDir()
	fstree.Write(t, root, fixture)
	run(t, root, "", "git", "init", "-q")
	run(t, filepath.Join(root, "inner"), "", "git", "init", "-q")
	fstree.Write(t, root, map[string]string{".git/info/exclude": "info.txt\n*.tmp\n!cx.tmp\n"})
	return root
}

// walk lists the files a walk with m keeps, as ripgrep's --files does.
func walk(t *testing.T, m *Matcher, root string) []string {
	t.Helper()
	var out []string
	var visit func(d *Dir, rel string)
	visit = func(d *Dir, rel string) {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() == ".git" {
				continue
			}
			p := strings.TrimPrefix(rel+"/"+e.Name(), "/")
			if m.Ignored(d, p, e.IsDir()) {
				continue
			}
			if e.IsDir() {
				var has Present
				sub, _ := os.ReadDir(filepath.Join(root, filepath.FromSlash(p)))
				for _, s := range sub {
					has |= PresentFor(s.Name())
				}
				visit(m.Enter(d, p, has), p)
				continue
			}
			out = append(out, p)
		}
	}
	visit(m.Root(), "")
	sort.Strings(out)
	return out
}

func TestAgreesWithRipgrepFiles(t *testing.T) {
	root := setup(t)
	if _, err := exec.LookPath("rg"); err != nil {
		e2e.Missing(t, "rg is not installed")
	}
	want := strings.Fields(run(t, root, "", "rg", "--files", "--hidden", "--no-require-git", "--no-config", "-g", "!.git", "--sort", "path"))
	sort.Strings(want)
	got := walk(t, New(root, Options{Dot: true}), root)
	if !slices.Equal(got, want) {
		t.Errorf("walk differs from rg --files:\n got %q\nwant %q", got, want)
	}
}

func TestAgreesWithGitCheckIgnore(t *testing.T) {
	root := setup(t)
	var paths []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if d.Name() == ".git" || strings.HasPrefix(p, filepath.Join(root, "inner")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, _ := filepath.Rel(root, p); rel != "." {
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{}
	for _, p := range strings.Split(run(t, root, strings.Join(paths, "\n")+"\n", "git", "check-ignore", "--stdin"), "\n") {
		ignored[p] = p != ""
	}
	m := New(root, Options{})
	for _, p := range paths {
		fi, _ := os.Stat(filepath.Join(root, p))
		if got := m.Check(p, fi.IsDir()); got != ignored[p] {
			t.Errorf("%s: ignored=%v, git check-ignore says %v", p, got, ignored[p])
		}
	}
}

func TestParseSkipsCommentsAndBlankLines(t *testing.T) {
	t.Parallel()
	if f := Parse([]byte("# only a comment\n\n   \n"), ""); f != nil {
		t.Fatalf("rules = %+v", f.rules)
	}
	if Parse([]byte("\xEF\xBB\xBF# c\n"), "") != nil {
		t.Fatal("a BOM and a comment make no rule")
	}
}

// TestLinkedWorktreeReadsTheCommonExclude checks that a linked worktree,
// whose .git is a file, uses info/exclude from the common directory, as git
// does.
func TestLinkedWorktreeReadsTheCommonExclude(t *testing.T) {
	root := setup(t)
	run(t, root, "", "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "c")
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, root, "", "git", "worktree", "add", "-q", wt)
	fstree.Write(t, wt, map[string]string{"info.txt": "", "x.tmp": "", "cx.tmp": ""})
	m := New(wt, Options{})
	for p, want := range map[string]bool{"info.txt": true, "x.tmp": true, "cx.tmp": false} {
		if got := m.Check(p, false); got != want {
			t.Errorf("%s: ignored=%v, want %v", p, got, want)
		}
	}
	if got := strings.TrimSpace(run(t, wt, "info.txt\nx.tmp\ncx.tmp\n", "git", "check-ignore", "--stdin")); got != "info.txt\nx.tmp" {
		t.Errorf("git check-ignore in the worktree says %q", got)
	}
}

// TestIgnoreFilesThatAreNotRegularAreSkipped: a FIFO planted as .gitignore
// or named by core.excludesFile neither hangs nor counts.
func TestIgnoreFilesThatAreNotRegularAreSkipped(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	fstree.Write(t, home, map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/fifo\n"})
	fstree.Write(t, root, map[string]string{"a.txt": ""})
	for _, p := range []string{filepath.Join(home, "fifo"), filepath.Join(root, ".gitignore")} {
		if err := mkfifo(p); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	m := New(root, Options{Dot: true})
	if m.Check("a.txt", false) {
		t.Fatal("a.txt ignored")
	}
}
