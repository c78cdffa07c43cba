package gitsafe_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/testutil/hostilerepo"
)

// Every read the agent's git makes runs none of a hostile repository's
// programs, and still answers.
// README.md "Modes and permissions": Safe git: every git the agent runs itself runs none of a hostile repository's programs (fsmonitor, hooks, pager, filters, textconv, external diff) and still answers.
func TestSafeGitRunsNothingTheRepositoryPlants(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	r.ProveHostile(t)
	for _, args := range [][]string{
		{"status", "--porcelain=v1"},
		{"status"},
		{"diff"},
		{"diff", "--stat"},
		{"diff", "HEAD~1", "HEAD"},
		{"-c", "core.quotepath=false", "diff", "--cached", "HEAD~1"},
		{"log", "-p", "-2"},
		{"log", "--stat"},
		{"show", "HEAD"},
		{"show", "HEAD:a.txt"},
		{"blame", "a.txt"},
		{"diff", "--check"},
		{"ls-files", "--cached", "--", "a.txt"},
	} {
		cmd := gitsafe.Command(context.Background(), r.Bin, r.Dir, args...)
		out, err := cmd.CombinedOutput()
		if err != nil && !slices.Contains(args, "--check") {
			t.Errorf("git %v: %v\n%s", args, err, out)
		}
		if len(strings.TrimSpace(string(out))) == 0 && !slices.Contains(args, "--check") {
			t.Errorf("git %v printed nothing", args)
		}
		r.AssertNothingRan(t, "git "+strings.Join(args, " "))
	}
}

// ObjectCommand, which skips the filter-driver listing for reads of the
// object store alone, runs none of a hostile repository's programs either,
// and a switch that converts blobs sends it back to Command's full
// treatment (issue 32 item 2: the listing doubled a short log's time).
func TestObjectCommandRunsNothingTheRepositoryPlants(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	r.ProveHostile(t)
	for _, args := range [][]string{
		{"log", "-p", "-2"},
		{"log", "--stat", "--", "a.txt"},
		{"show", "HEAD"},
		{"show", "HEAD:a.txt"},
		{"rev-parse", "--verify", "HEAD^{commit}"},
		{"cat-file", "-p", "HEAD:a.txt"},
		{"cat-file", "--filters", "HEAD:a.txt"},
		{"status", "--porcelain=v1"},
		{"diff"},
		{"blame", "a.txt"},
		{"blame", "--date=iso", "-L1,2", "--line-porcelain", "HEAD", "--", "a.txt"},
		{"blame", "--contents", "a.txt", "--", "a.txt"},
	} {
		out, err := gitsafe.ObjectCommand(context.Background(), r.Bin, r.Dir, args...).CombinedOutput()
		if err != nil {
			t.Errorf("git %v: %v\n%s", args, err, out)
		}
		if len(strings.TrimSpace(string(out))) == 0 && !slices.Contains(args, "diff") {
			t.Errorf("git %v printed nothing", args)
		}
		r.AssertNothingRan(t, "git "+strings.Join(args, " "))
	}
}

// A blame at a named revision reads only objects, so ObjectCommand skips
// the filter-driver listing for it (the listing was most of the Git tool's
// margin over git blame, issue 32 item 2); a blame of the work-tree file,
// one reading --contents, or any shape it does not recognise keeps the
// emptied drivers. The listing's mark is the filter keys in the command's
// environment.
func TestObjectCommandListsFiltersUnlessBlameNamesARevision(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	for _, c := range []struct {
		args  []string
		lists bool
	}{
		{[]string{"blame", "--date=iso", "-L1,200", "HEAD", "--", "a.txt"}, false},
		{[]string{"blame", "--date=iso", "-L1,2", "--line-porcelain", "HEAD~1", "--", "a.txt"}, false},
		{[]string{"log", "--oneline"}, false},
		{[]string{"blame", "a.txt"}, true},
		{[]string{"blame", "--", "a.txt"}, true},
		{[]string{"blame", "--date=iso", "-L1,2", "--", "a.txt"}, true},
		{[]string{"blame", "--contents", "a.txt", "HEAD", "--", "a.txt"}, true},
		{[]string{"blame", "--contents=a.txt", "HEAD", "--", "a.txt"}, true},
		{[]string{"blame", "-L", "1,2", "HEAD", "--", "a.txt"}, true},
		{[]string{"blame", "HEAD", "a.txt"}, true},
		{[]string{"blame", "HEAD", "HEAD~1", "--", "a.txt"}, true},
		{[]string{"blame", "", "--", "a.txt"}, true},
		{[]string{"blame", "HEAD", "--", "a.txt", "b.txt"}, true},
		{[]string{"status"}, true},
	} {
		env := gitsafe.ObjectCommand(context.Background(), r.Bin, r.Dir, c.args...).Env
		if got := slices.ContainsFunc(env, func(e string) bool { return strings.HasSuffix(e, "=filter.evil.clean") }); got != c.lists {
			t.Errorf("git %q: filter drivers listed = %v, want %v", c.args, got, c.lists)
		}
	}
}

// A caller's --textconv or --ext-diff would win over the off-switches
// (git honours the later switch) and run the hostile repository's planted
// driver: Command refuses them before anything starts, and a path named
// like one after "--" is still a path.
func TestSwitchesThatUndoTheOffSwitchesAreRefused(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	r.ProveHostile(t)
	for _, args := range [][]string{
		{"show", "--textconv", "HEAD:a.txt"},
		{"log", "-p", "--ext-diff", "-1"},
		{"diff", "--textconv", "HEAD~1"},
		{"blame", "--textconv", "a.txt"},
	} {
		for _, cmd := range []*exec.Cmd{gitsafe.Command(context.Background(), r.Bin, r.Dir, args...),
			gitsafe.ObjectCommand(context.Background(), r.Bin, r.Dir, args...)} {
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(err.Error(), "does not take it") {
				t.Errorf("git %v: err %v, want a refusal\n%s", args, err, out)
			}
		}
		r.AssertNothingRan(t, "git "+strings.Join(args, " "))
	}
	if out, err := gitsafe.Command(context.Background(), r.Bin, r.Dir, "log", "--oneline", "--", "--textconv").CombinedOutput(); err != nil {
		t.Errorf("a path after -- was refused: %v\n%s", err, out)
	}
}

func TestArgsPlaceSwitchesAfterTheSubcommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want []string }{
		{[]string{"diff", "--stat"}, []string{"--no-pager", "diff", "--no-ext-diff", "--no-textconv", "--stat"}},
		{[]string{"-c", "core.quotepath=false", "show", "HEAD"},
			[]string{"--no-pager", "-c", "core.quotepath=false", "show", "--no-ext-diff", "--no-textconv", "HEAD"}},
		{[]string{"blame", "x"}, []string{"--no-pager", "blame", "--no-textconv", "x"}},
		{[]string{"status"}, []string{"--no-pager", "status"}},
	} {
		if got := gitsafe.Args(c.in...); !slices.Equal(got, c.want) {
			t.Errorf("Args(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestConfigEnvAppendsAfterTheEnvironmentsOwn(t *testing.T) {
	t.Setenv("GIT_CONFIG_COUNT", "2")
	env := gitsafe.ConfigEnv(context.Background(), "git", t.TempDir())
	if !slices.Contains(env, "GIT_CONFIG_KEY_2=core.fsmonitor") || env[len(env)-1] == "GIT_CONFIG_COUNT=2" {
		t.Errorf("the caller's own GIT_CONFIG entries are not kept: %v", env)
	}
}

// codewhale's own git (the Git tool, checkpoints, the classifier's tracked
// files) gets the environment a Bash command gets: a stand-in git that
// prints its environment never sees the agent's API key or a token.
// README.md "Modes and permissions": codewhale's own git gets the scrubbed environment a Bash command gets.
func TestGitNeverSeesTheAgentsKeys(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-gitsafe")
	t.Setenv("GITHUB_TOKEN", "ghp-canary-gitsafe")
	dir := t.TempDir()
	bin := filepath.Join(dir, "git")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := gitsafe.Command(context.Background(), bin, dir, "status").Output()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "canary") || !strings.Contains(s, "GIT_TERMINAL_PROMPT=0") {
		t.Fatalf("git's environment:\n%s", s)
	}
}
