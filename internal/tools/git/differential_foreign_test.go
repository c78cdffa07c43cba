package git

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// foreignBundle is mattn/go-isatty's history as a git bundle
// (testdata/README.md says where it comes from and under which licence): a
// repository this project's tests never shaped, with merges, renames, tags
// and a second branch.
const foreignBundle = "testdata/go-isatty.bundle"

// TestGitDifferentialForeign replays a repository no one here wrote (the
// issue's "data we did not write"): every third commit of its first-parent
// history through the same cases as TestGitDifferentialHistory, every merge
// through show, every tag through log (alone, as a range, per path), diff
// and blame at that revision, and the branch header of status in each
// tracking state. Both backends are compared with git; the go-git backend
// may refuse only with its documented "needs the git binary" message
// (CONTRACT.md §6.3), which is counted apart, never as agreement.
func TestGitDifferentialForeign(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: replays a vendored public repository through every action against git; make test runs it (go test without -short)")
	}
	t.Parallel()
	src, err := filepath.Abs(foreignBundle)
	if err != nil {
		t.Fatal(err)
	}
	r := gitfixture.Clone(t, src)
	d := newDiffer(t, r)
	commits := r.Commits("origin/master", 0)
	replayed := 0
	for i, c := range commits {
		if i%3 == 0 || i == len(commits)-1 {
			d.replayCommit(c, 3)
			replayed++
		}
	}
	d.context = "merges"
	for _, m := range strings.Fields(r.Run("rev-list", "--merges", "--first-parent", "origin/master")) {
		d.showCases(m)
	}
	r.Run("checkout", "-q", "-f", "master")
	d.context = "tags"
	d.tagCases(strings.Fields(r.Run("tag", "--sort=v:refname")))
	d.context = "branches"
	d.branchCases()
	d.context = "states"
	d.stateCases()
	d.report("go-isatty", replayed)
	for _, key := range []string{"status/go-git", "log/go-git", "show/go-git", "diff/cli", "blame/cli"} {
		if n := d.tally.counts[key]; n == nil || n[0] < 100 {
			t.Errorf("the foreign replay agreed on too few %s calls: %v", key, d.tally.lines())
		}
	}
}

// tagCases asks, for each tag, for the log from it, from the previous tag
// to it (A..B), from it to the other branch (A...B), per path changed
// between the two; the diff of the worktree against it, whole, per path
// and cached; and blame at it.
func (d *differ) tagCases(tags []string) {
	const other = "origin/cygwin-msys2"
	for i, tag := range tags {
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": tag}, logRef("--max-count=20", tag)})
		d.check(diffCase{"log", map[string]any{"action": "log", "rev": tag + "..." + other, "max_count": 5},
			logRef("--max-count=5", tag+"..."+other)})
		changed := d.namesBetween(tag, "HEAD")
		if i > 0 {
			rng := tags[i-1] + ".." + tag
			d.check(diffCase{"log", map[string]any{"action": "log", "rev": rng}, logRef("--max-count=20", rng)})
			for _, p := range firstN(d.namesBetween(tags[i-1], tag), 2) {
				d.check(diffCase{"log", map[string]any{"action": "log", "rev": rng, "path": p},
					logRef("--max-count=20", rng, "--", p)})
			}
		}
		d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": tag}, diffRef("--unified=3", tag)})
		d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": tag, "cached": true, "unified": 1},
			diffRef("--unified=1", "--cached", tag)})
		for _, p := range firstN(changed, 2) {
			d.check(diffCase{"diff", map[string]any{"action": "diff", "rev": tag, "path": p}, diffRef("--unified=3", tag, "--", p)})
			d.check(diffCase{"log", map[string]any{"action": "log", "rev": tag, "path": p}, logRef("--max-count=20", tag, "--", p)})
		}
		gofiles := goFiles(d.treeFiles(tag))
		for _, p := range firstN(append(gofiles[i%len(gofiles):], gofiles...), 2) {
			d.blameCases(tag, p)
		}
	}
	d.check(diffCase{"log", map[string]any{"action": "log", "author": "mattn", "since": "2019-01-01", "until": "2021-01-01"},
		logRef("--max-count=20", "--author=mattn", "--since=2019-01-01", "--until=2021-01-01")})
	d.check(diffCase{"log", map[string]any{"action": "log", "rev": other, "path": "isatty_others.go"},
		logRef("--max-count=20", other, "--", "isatty_others.go")})
}

// branchCases compares status's branch header (porcelain v1 `-b`) in each
// state a branch can be in against its upstream: even, behind, ahead and
// behind, without an upstream, diverged from another branch, with its
// upstream gone, and detached.
func (d *differ) branchCases() {
	r := d.r
	status := func() {
		d.check(diffCase{"status", map[string]any{"action": "status"}, statusRef("")})
		d.check(diffCase{"status", map[string]any{"action": "status", "path": "README.md"}, statusRef("README.md")})
	}
	status() // master...origin/master
	r.Run("reset", "-q", "--hard", "HEAD~3")
	status() // [behind 3]
	r.Write("ahead.txt", "a commit of our own\n")
	r.Commit("A commit only here")
	status() // [ahead 1, behind 3]
	r.Run("checkout", "-q", "-b", "topic")
	status() // no upstream
	r.Run("branch", "-q", "--set-upstream-to="+"origin/cygwin-msys2")
	status() // far ahead and behind
	r.Run("config", "branch.topic.merge", "refs/heads/no-such-branch")
	status() // [gone]
	r.Run("checkout", "-q", "--detach", "v0.0.12")
	status() // HEAD (no branch)
	r.Run("checkout", "-q", "-f", "master")
}

// namesBetween is what changed from a to b, UTF-8 names only.
func (d *differ) namesBetween(a, b string) []string {
	out := d.r.Run("diff", "--name-only", "-z", a, b)
	var names []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			names = append(names, p)
		}
	}
	return names
}

func goFiles(files map[string]bool) []string {
	var out []string
	for _, p := range sortedSet(files) {
		if strings.HasSuffix(p, ".go") {
			out = append(out, p)
		}
	}
	return out
}

func firstN(list []string, n int) []string { return list[:min(len(list), n)] }

// stateCases compares status, diff and show in the repository states the
// go-git backend once got wrong: an assume-unchanged file edited, a nested
// repository, a split index (which it must refuse, saying so), and a
// merge conflict read through the index stages (:1:path, :2:, :3:, :0:).
func (d *differ) stateCases() {
	r := d.r
	status := func(paths ...string) {
		d.check(diffCase{"status", map[string]any{"action": "status"}, statusRef("")})
		for _, p := range paths {
			d.check(diffCase{"status", map[string]any{"action": "status", "path": p}, statusRef(p)})
		}
	}
	r.Run("update-index", "--assume-unchanged", "README.md")
	appendTo(d, "README.md", "edited while assumed unchanged\n")
	status("README.md")
	d.check(diffCase{"diff", map[string]any{"action": "diff", "path": "README.md"}, diffRef("--unified=3", "--", "README.md")})
	r.Run("update-index", "--no-assume-unchanged", "README.md")
	r.Run("checkout", "-q", "--", "README.md")

	r.Write("nested/inner.txt", "inside a repository of its own\n")
	if _, err := r.RunIn(r.Path("nested"), "init", "-q"); err != nil {
		d.t.Fatal(err)
	}
	status("nested", "nested/inner.txt")
	r.Run("clean", "-ffdxq")

	r.Run("update-index", "--split-index")
	appendTo(d, "README.md", "edited under a split index\n")
	status("README.md")
	r.Run("update-index", "--no-split-index")
	r.Run("checkout", "-q", "--", "README.md")

	r.Run("checkout", "-q", "-b", "ours")
	r.Write("README.md", "ours\n")
	r.Commit("Ours")
	r.Run("checkout", "-q", "-b", "theirs", "HEAD~1")
	r.Write("README.md", "theirs\n")
	r.Commit("Theirs")
	if _, err := r.RunIn(r.Dir, "merge", "-q", "ours"); err == nil {
		d.t.Fatal("the merge meant to conflict did not")
	}
	status("README.md")
	d.check(diffCase{"diff", map[string]any{"action": "diff"}, diffRef("--unified=3")})
	for _, rev := range []string{":1:README.md", ":2:README.md", ":3:README.md", ":0:README.md", ":README.md", ":1:LICENSE"} {
		d.check(diffCase{"show", map[string]any{"action": "show", "rev": rev, "patch": false, "stat": false}, ref("show", "--no-color", "--no-ext-diff", "--no-patch", rev)})
	}
	r.Run("merge", "--abort")
	r.Run("checkout", "-q", "-f", "master")
}
