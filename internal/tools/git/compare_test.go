package git

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// gitCase is one read compared between the tool's backends and the git
// CLI: the tool input, and the git command (run in dir, relative to the
// repository) whose stdout is the expected content.
type gitCase struct {
	name string
	in   string
	dir  string
	args []string
}

const prettyLog = "--pretty=format:%H%nAuthor: %an <%ae>%nDate: %ad%nSubject: %s%n"

// backends are the two ways the tool can run: forced go-git, and the
// default (git binary present).
func backends() map[string]*Tool {
	return map[string]*Tool{"go-git": New(Options{DisableCLI: true}), "cli": New()}
}

// runCases checks every case against every backend.
func runCases(t *testing.T, f *fixture, cases []gitCase) {
	t.Helper()
	runCasesIn(t, f, &tools.Context{Workspace: f.Dir}, cases)
}

// runCasesIn is runCases with the tool running in tc (a workspace below
// the repository's top level, trusted roots).
func runCasesIn(t *testing.T, f *fixture, tc *tools.Context, cases []gitCase) {
	t.Helper()
	for _, c := range cases {
		want, err := f.RunIn(filepath.Join(f.Dir, filepath.FromSlash(c.dir)), c.args...)
		if err != nil {
			t.Fatalf("%s: reference git %v: %v", c.name, c.args, err)
		}
		for name, tool := range backends() {
			res, err := tool.Execute(context.Background(), tc, json.RawMessage(c.in))
			if err != nil {
				t.Errorf("%s [%s]: Execute error: %v", c.name, name, err)
				continue
			}
			if name == "go-git" && needsBinaryInput(c.in) && !res.Success && strings.Contains(res.Content, "needs the git binary") {
				continue // the go-git backend refuses what needs git's diff machinery
			}
			if !res.Success {
				t.Errorf("%s [%s]: failed: %s", c.name, name, res.Content)
				continue
			}
			if res.Content != want {
				t.Errorf("%s [%s]: content differs from git %s\n%s", c.name, name, strings.Join(c.args, " "), lineDiff(want, res.Content))
			}
		}
	}
}

// needsBinaryInput reports whether a call needs git's diff machinery, which
// the go-git backend refuses: diff, blame, and show with a patch or stat
// (both default to true).
func needsBinaryInput(in string) bool {
	var a struct {
		Action      string
		Patch, Stat *bool
	}
	_ = json.Unmarshal([]byte(in), &a)
	switch a.Action {
	case "diff", "blame":
		return true
	case "show":
		return a.Patch == nil || *a.Patch || a.Stat == nil || *a.Stat
	}
	return false
}

// lineDiff shows expected and actual text around the first differing line.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			lo := max(0, i-3)
			return "--- git (from line " + strconv.Itoa(lo+1) + ")\n" + strings.Join(w[lo:min(len(w), i+6)], "\n") +
				"\n--- tool\n" + strings.Join(g[lo:min(len(g), i+6)], "\n")
		}
	}
	return "(equal)"
}

func TestStatusMatchesGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	clean := []gitCase{{name: "clean tree, ahead and behind", in: `{"action":"status"}`, args: status}}
	runCases(t, f, clean)
	f.dirtyWorktree()
	runCases(t, f, []gitCase{
		{name: "dirty tree", in: `{"action":"status"}`, args: status},
		{name: "directory scope", in: `{"action":"status","path":"docs"}`, dir: "docs", args: append(status, "--", ".")},
		{name: "untracked directory scope", in: `{"action":"status","path":"untracked dir"}`, dir: "untracked dir", args: append(status, "--", ".")},
		{name: "file scope", in: `{"action":"status","path":"demo.go"}`, args: append(status, "--", "demo.go")},
		{name: "nested untracked file scope", in: `{"action":"status","path":"untracked dir/nested/b.txt"}`, dir: "untracked dir/nested", args: append(status, "--", "b.txt")},
		{name: "unicode directory scope", in: `{"action":"status","path":"ünïcødé"}`, dir: "ünïcødé", args: append(status, "--", ".")},
	})
	f.stagedRename()
	runCases(t, f, []gitCase{{name: "staged inexact rename", in: `{"action":"status"}`, args: status}})
}

func TestStatusUnmerged(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("checkout", "-q", "-b", "theirs", "HEAD~3")
	f.Write("demo.go", "package demo\n// theirs\n")
	f.Remove("run.sh")
	f.Write("both-added.txt", "theirs\n")
	f.Commit("Theirs")
	f.Run("checkout", "-q", "main")
	f.Write("both-added.txt", "ours\n")
	f.Write("run.sh", "#!/bin/sh\necho changed\n")
	f.Commit("Ours")
	if _, err := f.RunIn(f.Dir, "merge", "-q", "--no-edit", "theirs"); err == nil {
		t.Fatal("expected conflicts")
	}
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	show := func(rev string) []string { return []string{"show", "--no-color", "--no-ext-diff", "--no-patch", rev} }
	runCases(t, f, []gitCase{{name: "conflicts", in: `{"action":"status"}`, args: status},
		// A conflict's stages are shown as git shows them, in both backends.
		{name: "base", in: `{"action":"show","rev":":1:demo.go","patch":false,"stat":false}`, args: show(":1:demo.go")},
		{name: "ours", in: `{"action":"show","rev":":2:demo.go","patch":false,"stat":false}`, args: show(":2:demo.go")},
		{name: "theirs", in: `{"action":"show","rev":":3:both-added.txt","patch":false,"stat":false}`, args: show(":3:both-added.txt")},
	})
}

// TestIndexStatesAgreeOrRefuse: an assume-unchanged file is not modified
// for either backend, as for git; a split index is read by git and refused
// by go-git with what to do, never misread (issue 32).
func TestIndexStatesAgreeOrRefuse(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("update-index", "--assume-unchanged", "demo.go")
	f.Write("demo.go", "package demo\n// changed but assumed unchanged\n")
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	runCases(t, f, []gitCase{{name: "assume-unchanged", in: `{"action":"status"}`, args: status}})

	f.Run("update-index", "--no-assume-unchanged", "demo.go")
	f.Run("update-index", "--split-index")
	want, err := f.RunIn(f.Dir, status...)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tools.Context{Workspace: f.Dir}
	if res, err := New().Execute(context.Background(), tc, json.RawMessage(`{"action":"status"}`)); err != nil || res.Content != want {
		t.Errorf("split index with git: %v %q, want %q", err, res.Content, want)
	}
	res, err := New(Options{DisableCLI: true}).Execute(context.Background(), tc, json.RawMessage(`{"action":"status"}`))
	if err != nil || res.Success || !strings.Contains(res.Content, "uses a split index") || !strings.Contains(res.Content, "install git") {
		t.Errorf("split index with go-git: %v %+v, want the split-index refusal", err, res)
	}
}

func TestStatusBranchLines(t *testing.T) {
	t.Parallel()
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	unborn := newFixture(t)
	unborn.Write("a.txt", "a\n")
	runCases(t, unborn, []gitCase{{name: "unborn branch", in: `{"action":"status"}`, args: status}})
	unborn.Run("add", "a.txt")
	runCases(t, unborn, []gitCase{{name: "unborn branch, staged", in: `{"action":"status"}`, args: status},
		{name: "unborn branch, staged diff", in: `{"action":"diff","cached":true}`,
			args: []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached"}}})

	detached := historyFixture(t)
	detached.Run("checkout", "-q", "--detach", "HEAD~1")
	runCases(t, detached, []gitCase{{name: "detached HEAD", in: `{"action":"status"}`, args: status}})

	gone := historyFixture(t)
	gone.Run("update-ref", "-d", "refs/remotes/origin/main")
	runCases(t, gone, []gitCase{{name: "upstream gone", in: `{"action":"status"}`, args: status}})

	behind := historyFixture(t)
	behind.Run("reset", "-q", "--hard", "HEAD~2")
	runCases(t, behind, []gitCase{{name: "behind only", in: `{"action":"status"}`, args: status}})

	// A commit dated before its parent (a skewed clock): the walk meets
	// the parent from the upstream's side first and must still count it
	// as shared, as git does (1 ahead, 1 behind; it once said 4 behind).
	skewed := historyFixture(t)
	skewed.Run("reset", "-q", "--hard", "HEAD~2")
	skewed.Write("skewed.txt", "committed with a clock set back\n")
	skewed.Run("add", "skewed.txt")
	cmd := exec.Command(skewed.Bin, "commit", "-q", "-m", "Skewed clock")
	cmd.Dir, cmd.Env = skewed.Dir, append(skewed.Env(), "GIT_COMMITTER_DATE=1000000000 +0000")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("commit with a skewed clock: %v\n%s", err, out)
	}
	runCases(t, skewed, []gitCase{{name: "ahead with a skewed clock, behind", in: `{"action":"status"}`, args: status}})
}

func TestDiffMatchesGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.dirtyWorktree()
	f.Write("data.bin", "\x00changed binary\x00")
	f.Run("add", "data.bin")
	f.Write("data.bin", "\x00changed binary again\x00")
	diff := func(extra ...string) []string {
		return append([]string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff"}, extra...)
	}
	runCases(t, f, []gitCase{
		{name: "unstaged", in: `{"action":"diff"}`, args: diff("--unified=3")},
		{name: "staged", in: `{"action":"diff","cached":true}`, args: diff("--unified=3", "--cached")},
		{name: "no context", in: `{"action":"diff","unified":0}`, args: diff("--unified=0")},
		{name: "context clamped to 50", in: `{"action":"diff","unified":900}`, args: diff("--unified=50")},
		{name: "staged, one file", in: `{"action":"diff","cached":true,"path":"ünïcødé/файл.txt"}`, dir: "ünïcødé", args: diff("--unified=3", "--cached", "--", "файл.txt")},
		{name: "directory", in: `{"action":"diff","path":"docs"}`, dir: "docs", args: diff("--unified=3", "--", ".")},
		// rev is `git diff <rev>` (CONTRACT.md §6.3).
		{name: "against a revision", in: `{"action":"diff","rev":"HEAD~1"}`, args: diff("--unified=3", "HEAD~1")},
		{name: "staged against a revision", in: `{"action":"diff","rev":"HEAD~2","cached":true}`, args: diff("--unified=3", "--cached", "HEAD~2")},
		{name: "a revision and a path", in: `{"action":"diff","rev":"HEAD~1","path":"docs"}`, dir: "docs", args: diff("--unified=3", "HEAD~1", "--", ".")},
	})
	f.stagedRename()
	runCases(t, f, []gitCase{{name: "staged inexact rename", in: `{"action":"diff","cached":true}`, args: diff("--unified=3", "--cached")}})
}

func TestLogMatchesGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	log := func(n string, extra ...string) []string {
		return append([]string{"log", "--no-color", "--max-count=" + n, "--date=iso-strict", prettyLog}, extra...)
	}
	runCases(t, f, []gitCase{
		{name: "default", in: `{"action":"log"}`, args: log("20")},
		{name: "one commit", in: `{"action":"log","max_count":1}`, args: log("1")},
		{name: "clamped low", in: `{"action":"log","max_count":0}`, args: log("1")},
		{name: "file through a rename-free history", in: `{"action":"log","path":"demo.go"}`, args: log("20", "--", "demo.go")},
		{name: "file changed on a side branch", in: `{"action":"log","path":"docs/guide.md"}`, dir: "docs", args: log("20", "--", "guide.md")},
		{name: "directory", in: `{"action":"log","path":"docs"}`, dir: "docs", args: log("20", "--", ".")},
		{name: "whole tree pathspec hides the merge", in: `{"action":"log","path":"."}`, args: log("20", "--", ".")},
		{name: "author", in: `{"action":"log","author":"Grace"}`, args: log("20", "--author=Grace")},
		{name: "author regex", in: `{"action":"log","author":"^Ada.*example\\.com"}`, args: log("20", "--author=^Ada.*example\\.com")},
		{name: "since", in: `{"action":"log","since":"2023-11-15 03:00:00 +0200"}`, args: log("20", "--since=2023-11-15 03:00:00 +0200")},
		{name: "until", in: `{"action":"log","until":"@1700007400"}`, args: log("20", "--until=@1700007400")},
		{name: "long ago", in: `{"action":"log","since":"3 weeks ago"}`, args: log("20", "--since=3 weeks ago")},
		// rev is `git log <rev>`, in both backends (CONTRACT.md §6.3).
		{name: "from a revision", in: `{"action":"log","rev":"HEAD~2"}`, args: log("20", "HEAD~2")},
		{name: "a range", in: `{"action":"log","rev":"HEAD~2..HEAD"}`, args: log("20", "HEAD~2..HEAD")},
		{name: "an open range", in: `{"action":"log","rev":"HEAD~3.."}`, args: log("20", "HEAD~3..")},
		{name: "a symmetric range", in: `{"action":"log","rev":"HEAD~1...HEAD~3"}`, args: log("20", "HEAD~1...HEAD~3")},
		{name: "a range and a path", in: `{"action":"log","rev":"HEAD~4..HEAD","path":"demo.go"}`, args: log("20", "HEAD~4..HEAD", "--", "demo.go")},
		{name: "a revision and a filter", in: `{"action":"log","rev":"HEAD^","author":"Grace","max_count":2}`, args: log("2", "--author=Grace", "HEAD^")},
	})
}

// TestLogRevIsChecked: an unknown revision fails as git fails, in both
// backends, never as HEAD's history (CONTRACT.md §6.3).
func TestLogRevIsChecked(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	for name, tool := range backends() {
		for in, want := range map[string]string{
			`{"action":"log","rev":"no-such-tag"}`:                  "fatal: ambiguous argument 'no-such-tag': unknown revision",
			`{"action":"log","rev":"no-such-tag","path":"demo.go"}`: "fatal: bad revision 'no-such-tag'",
			`{"action":"log","rev":"nope..HEAD"}`:                   "fatal: ambiguous argument 'nope..HEAD'",
		} {
			res, err := tool.Execute(context.Background(), &tools.Context{Workspace: f.Dir}, json.RawMessage(in))
			if err != nil || res.Success || !strings.Contains(res.Content, want) {
				t.Errorf("%s [%s]: %v %+v, want a failure with %q", in, name, err, res, want)
			}
		}
		if _, err := tool.Prepare(json.RawMessage(`{"action":"log","rev":"-p"}`)); err == nil {
			t.Errorf("[%s] a rev that is an option was accepted", name)
		}
	}
}

func TestShowMatchesGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("tag", "-a", "tree-tag", "-m", "A tag on a tree", "HEAD^{tree}")
	show := func(extra ...string) []string {
		return append([]string{"show", "--no-color", "--no-ext-diff"}, extra...)
	}
	runCases(t, f, []gitCase{
		{name: "head", in: `{"action":"show","rev":"HEAD"}`, args: show("--unified=3", "--stat", "HEAD")},
		{name: "rename, delete, binary, mode", in: `{"action":"show","rev":"v1.0"}`, args: show("--unified=3", "--stat", "v1.0")},
		{name: "root commit", in: `{"action":"show","rev":"HEAD~4"}`, args: show("--unified=3", "--stat", "HEAD~4")},
		{name: "merge", in: `{"action":"show","rev":"HEAD~1"}`, args: show("--unified=3", "--stat", "HEAD~1")},
		{name: "merge without stat", in: `{"action":"show","rev":"HEAD~1","stat":false}`, args: show("--unified=3", "HEAD~1")},
		{name: "stat only", in: `{"action":"show","rev":"v1.0","patch":false}`, args: show("--stat", "v1.0")},
		{name: "patch only", in: `{"action":"show","rev":"v1.0^{commit}","stat":false,"unified":0}`, args: show("--unified=0", "v1.0^{commit}")},
		{name: "header only", in: `{"action":"show","rev":"HEAD~2","patch":false,"stat":false}`, args: show("--no-patch", "HEAD~2")},
		{name: "path the commit touches", in: `{"action":"show","rev":"HEAD~3","path":"demo.go"}`, args: show("--unified=3", "--stat", "HEAD~3", "--", "demo.go")},
		{name: "path the commit does not touch", in: `{"action":"show","rev":"HEAD","path":"demo.go"}`, args: show("--unified=3", "--stat", "HEAD", "--", "demo.go")},
		{name: "blob", in: `{"action":"show","rev":"HEAD:demo.go"}`, args: show("--unified=3", "--stat", "HEAD:demo.go")},
		{name: "tree", in: `{"action":"show","rev":"HEAD^{tree}"}`, args: show("--unified=3", "--stat", "HEAD^{tree}")},
		{name: "tag on a tree", in: `{"action":"show","rev":"tree-tag"}`, args: show("--unified=3", "--stat", "tree-tag")},
		{name: "second parent", in: `{"action":"show","rev":"HEAD~1^2"}`, args: show("--unified=3", "--stat", "HEAD~1^2")},
	})
}

func TestBlameMatchesGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	blame := func(lines, rev, file string, porcelain bool) []string {
		a := []string{"blame", "--date=iso", "-L" + lines}
		if porcelain {
			a = append(a, "--line-porcelain")
		}
		return append(a, rev, "--", file)
	}
	runCases(t, f, []gitCase{
		{name: "porcelain, whole file", in: `{"action":"blame","path":"demo.go","porcelain":true}`, args: blame("1,200", "HEAD", "demo.go", true)},
		{name: "default format", in: `{"action":"blame","path":"demo.go"}`, args: blame("1,200", "HEAD", "demo.go", false)},
		{name: "range", in: `{"action":"blame","path":"demo.go","start_line":10,"max_lines":8,"porcelain":true}`, args: blame("10,17", "HEAD", "demo.go", true)},
		{name: "older revision", in: `{"action":"blame","path":"demo.go","rev":"v1.0","porcelain":true}`, args: blame("1,200", "v1.0", "demo.go", true)},
		{name: "renamed file", in: `{"action":"blame","path":"docs/new-name.txt","porcelain":true}`, dir: "docs", args: blame("1,200", "HEAD", "new-name.txt", true)},
		{name: "renamed file, default format", in: `{"action":"blame","path":"docs/new-name.txt"}`, dir: "docs", args: blame("1,200", "HEAD", "new-name.txt", false)},
		{name: "merged from a side branch", in: `{"action":"blame","path":"docs/guide.md","porcelain":true}`, dir: "docs", args: blame("1,200", "HEAD", "guide.md", true)},
		{name: "two authors, default format", in: `{"action":"blame","path":"docs/guide.md"}`, dir: "docs", args: blame("1,200", "HEAD", "guide.md", false)},
		{name: "non-ASCII path", in: `{"action":"blame","path":"ünïcødé/файл.txt","porcelain":true}`, dir: "ünïcødé", args: blame("1,200", "HEAD", "файл.txt", true)},
	})
}

// TestIndexVersionsAndPacks reads an index in format 4 (prefix-compressed
// paths) and a repository whose objects are all packed.
func TestIndexVersionsAndPacks(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("gc", "-q")
	f.dirtyWorktree()
	f.Run("update-index", "--index-version", "4")
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	runCases(t, f, []gitCase{
		{name: "index v4 status", in: `{"action":"status"}`, args: status},
		{name: "index v4 staged diff", in: `{"action":"diff","cached":true}`,
			args: []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached"}},
		{name: "packed show", in: `{"action":"show","rev":"HEAD~1"}`, args: []string{"show", "--no-color", "--no-ext-diff", "--unified=3", "--stat", "HEAD~1"}},
		{name: "packed blame", in: `{"action":"blame","path":"demo.go"}`, args: []string{"blame", "--date=iso", "-L1,200", "HEAD", "--", "demo.go"}},
		{name: "abbreviated revision", in: `{"action":"log","max_count":3}`, args: []string{"log", "--no-color", "--max-count=3", "--date=iso-strict", prettyLog}},
	})
}

// TestLinkedWorktree reads a worktree made by `git worktree add`, whose
// index lives apart from the shared object store.
func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	wt := filepath.Join(canonicalTemp(t), "wt")
	f.Run("worktree", "add", "-q", "-b", "feature", wt, "HEAD~2")
	g := &fixture{f.At(t, wt)}
	g.Write("demo.go", "changed in worktree\n")
	g.Write("new-in-wt.txt", "x\n")
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	runCases(t, g, []gitCase{
		{name: "linked worktree status", in: `{"action":"status"}`, args: status},
		{name: "linked worktree diff", in: `{"action":"diff"}`, args: []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3"}},
		{name: "linked worktree log", in: `{"action":"log","max_count":2}`, args: []string{"log", "--no-color", "--max-count=2", "--date=iso-strict", prettyLog}},
	})
}

// TestLinkedWorktreeMatchesGit runs the actions in a `git worktree add`
// checkout, whose HEAD and index are private while objects, refs and
// info/exclude live in the main repository's .git.
func TestLinkedWorktreeMatchesGit(t *testing.T) {
	t.Parallel()
	main := historyFixture(t)
	wt := &fixture{main.At(t, filepath.Join(canonicalTemp(t), "wt"))}
	main.Run("worktree", "add", "-q", "-b", "side-wt", wt.Dir)
	main.Write(".git/info/exclude", "*.log\n")
	wt.Write("scratch.log", "ignored through the common info/exclude\n")
	wt.Write("new.txt", "untracked\n")
	wt.Write("demo.go", "package main // edited in the worktree\n")
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	runCases(t, wt, []gitCase{
		{name: "worktree status", in: `{"action":"status"}`, args: status},
		{name: "worktree diff", in: `{"action":"diff"}`, args: []string{"diff", "--no-color", "--no-ext-diff"}},
		{name: "worktree log", in: `{"action":"log","max_count":3}`,
			args: []string{"log", "--no-color", "--max-count=3", "--date=iso-strict", prettyLog}},
	})
}

// TestStatusNestedRepository: a file inside a nested repository is not this
// repository's untracked file; both backends show what git shows (issue 32).
func TestStatusNestedRepository(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("init", "-q", "inner")
	f.Write("inner/x.txt", "x\n")
	for _, args := range [][]string{{"add", "x.txt"}, {"-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"}} {
		if out, err := f.RunIn(filepath.Join(f.Dir, "inner"), args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	status := []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}
	runCases(t, f, []gitCase{{name: "nested", in: `{"action":"status"}`, args: status},
		{name: "the nested repository", in: `{"action":"status","path":"inner"}`, args: append(slices.Clone(status), "--", "inner")},
		{name: "a file inside it", in: `{"action":"status","path":"inner/x.txt"}`, args: append(slices.Clone(status), "--", "inner/x.txt")}})
}
