package git

import (
	"os"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// ref builds a reference command line: git with literal pathspecs, as the
// tool passes them.
func ref(args ...string) []string { return append([]string{"--literal-pathspecs"}, args...) }

func statusRef(p string) []string {
	a := ref("-c", "core.quotepath=false", "status", "--porcelain=v1", "-b")
	if p != "" {
		a = append(a, "--", p)
	}
	return a
}

func diffRef(extra ...string) []string {
	return ref(append([]string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff"}, extra...)...)
}

func logRef(extra ...string) []string {
	return ref(append([]string{"log", "--no-color", "--date=iso-strict", "--pretty=" + logFormat}, extra...)...)
}

// replayCommit checks out c (detached, clean) and compares every action on
// it, then dirties the worktree and compares status and diff. maxPaths
// bounds the paths per commit that show, log and blame are asked about (0:
// all of them).
func (d *differ) replayCommit(c string, maxPaths int) {
	d.context = c[:10]
	d.r.Run("checkout", "-q", "-f", "--detach", c)
	d.r.Run("clean", "-fdxq")
	d.showCases(c)
	changed := d.changedPaths(c)
	if maxPaths > 0 && len(changed) > maxPaths {
		changed = changed[:maxPaths]
	}
	files := d.treeFiles(c)
	for _, p := range changed {
		d.check(diffCase{"show", map[string]any{"action": "show", "rev": c, "path": p},
			ref("show", "--no-color", "--no-ext-diff", "--unified=3", "--stat", c, "--", p)})
		d.check(diffCase{"log", map[string]any{"action": "log", "path": p}, logRef("--max-count=20", "--", p)})
		if dir := path.Dir(p); dir != "." {
			d.check(diffCase{"log", map[string]any{"action": "log", "path": dir + "/"}, logRef("--max-count=20", "--", dir+"/")})
		}
		if files[p] {
			d.blameCases(c, p)
		}
	}
	d.check(diffCase{"log", map[string]any{"action": "log"}, logRef("--max-count=20")})
	d.check(diffCase{"log", map[string]any{"action": "log", "max_count": 3, "author": "Grace"},
		logRef("--max-count=3", "--author=Grace")})
	for _, rev := range []string{c + "~1", "HEAD~2..HEAD", "HEAD~3...HEAD~1", "no-such-tag"} {
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": rev}, logRef("--max-count=20", rev)})
	}
	d.check(diffCase{"status", map[string]any{"action": "status"}, statusRef("")})
	d.dirtyCases(files)
	d.r.Run("reset", "-q", "--hard")
	d.r.Run("clean", "-fdxq")
}

// showCases asks show about c with each combination of its options, and
// about a few revision spellings around it.
func (d *differ) showCases(c string) {
	show := func(extra ...string) []string {
		return ref(append([]string{"show", "--no-color", "--no-ext-diff"}, extra...)...)
	}
	d.check(diffCase{"show", map[string]any{"action": "show", "rev": c}, show("--unified=3", "--stat", c)})
	d.check(diffCase{"show", map[string]any{"action": "show", "rev": c, "patch": false, "stat": false}, show("--no-patch", c)})
	d.check(diffCase{"show", map[string]any{"action": "show", "rev": c, "patch": false}, show("--stat", c)})
	d.check(diffCase{"show", map[string]any{"action": "show", "rev": c, "stat": false, "unified": 0}, show("--unified=0", c)})
	for _, rev := range []string{c + "^{tree}", c + "~1", c + "^", c + "^2", c + "~1abc", "HEAD~2..HEAD", "HEAD~1...HEAD",
		"HEAD..", "HEAD~2..HEAD~1", "~2", c[:7] + "^0"} {
		d.check(diffCase{"show", map[string]any{"action": "show", "rev": rev, "patch": false, "stat": false}, show("--no-patch", rev)})
	}
}

// blameCases blames p at c: the default format, porcelain, a window, and
// a start past the end of the file.
func (d *differ) blameCases(c, p string) {
	blame := func(extra ...string) []string {
		return ref(append(append([]string{"blame", "--date=iso"}, extra...), c, "--", p)...)
	}
	d.check(diffCase{"blame", map[string]any{"action": "blame", "path": p, "rev": c}, blame("-L1,200")})
	d.check(diffCase{"blame", map[string]any{"action": "blame", "path": p, "rev": c, "porcelain": true, "start_line": 2, "max_lines": 5},
		blame("-L2,6", "--line-porcelain")})
	d.check(diffCase{"blame", map[string]any{"action": "blame", "path": p, "rev": c, "start_line": 100000},
		blame("-L100000,100199")})
}

// dirtyCases dirties the checkout — an edit, a deletion, a staged edit, a
// staged rename, a retargeted symlink, a touched file (same content, new
// stat data), untracked files and a directory — and compares status and
// diff, whole and per path, and diff against the previous commit.
func (d *differ) dirtyCases(files map[string]bool) {
	var text, links []string
	for _, p := range sortedSet(files) {
		fi, err := os.Lstat(d.r.Path(p))
		switch {
		case err != nil || !utf8.ValidString(p):
		case fi.Mode()&os.ModeSymlink != 0:
			links = append(links, p)
		case fi.Mode().IsRegular() && fi.Size() < 1<<20 && !isBinaryFile(d.r.Path(p)):
			text = append(text, p)
		}
	}
	var paths []string
	if len(text) >= 5 {
		appendTo(d, text[0], "dirty line\n")
		d.r.Remove(text[1])
		appendTo(d, text[2], "staged line\n")
		d.r.Run("add", "--", text[2])
		d.r.Run("mv", "--", text[3], text[3]+".moved")
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(d.r.Path(text[4]), later, later); err != nil {
			d.t.Fatal(err)
		}
		paths = append(paths, text[0], text[1], text[2], text[3], text[3]+".moved", text[4])
	}
	for _, l := range links[:min(len(links), 3)] {
		d.r.Symlink("retargeted-target", l)
		paths = append(paths, l)
	}
	d.r.Write("untracked-new.txt", "u\n")
	d.r.Write("untracked dir/a.txt", "a\n")
	paths = append(paths, "untracked dir", "untracked dir/a.txt")
	d.check(diffCase{"status", map[string]any{"action": "status"}, statusRef("")})
	for _, p := range paths {
		d.check(diffCase{"status", map[string]any{"action": "status", "path": p}, statusRef(p)})
		d.check(diffCase{"diff", map[string]any{"action": "diff", "path": p}, diffRef("--unified=3", "--", p)})
	}
	d.check(diffCase{"diff", map[string]any{"action": "diff"}, diffRef("--unified=3")})
	d.check(diffCase{"diff", map[string]any{"action": "diff", "cached": true}, diffRef("--unified=3", "--cached")})
	d.check(diffCase{"diff", map[string]any{"action": "diff", "unified": 0}, diffRef("--unified=0")})
	d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": "HEAD~1"}, diffRef("--unified=3", "HEAD~1")})
	d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": "HEAD~1", "cached": true}, diffRef("--unified=3", "--cached", "HEAD~1")})
	for _, p := range paths[:min(len(paths), 2)] {
		d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": "HEAD~1", "path": p}, diffRef("--unified=3", "HEAD~1", "--", p)})
	}
}

func appendTo(d *differ, rel, line string) {
	b, err := os.ReadFile(d.r.Path(rel))
	if err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(d.r.Path(rel), append(b, line...), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

func isBinaryFile(abs string) bool {
	b, err := os.ReadFile(abs)
	return err != nil || isBinary(b)
}

// changedPaths lists what c changed against its first parent (everything
// for a root commit), UTF-8 names only: a JSON argument cannot carry
// others.
func (d *differ) changedPaths(c string) []string {
	out := d.r.Run("diff-tree", "-r", "-z", "--no-commit-id", "--name-only", "--root", "-m", "--first-parent", c)
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" && utf8.ValidString(p) && !contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// treeFiles is the set of blob and symlink paths in c's tree.
func (d *differ) treeFiles(c string) map[string]bool {
	out := d.r.Run("ls-tree", "-r", "-z", "--name-only", c)
	set := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
