package shellpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// git -C, --git-dir and --work-tree choose another repository than the one
// the command runs in; the tracked-secret rule follows them (real
// repositories, built with git). Resolving the repository reads files only,
// and the git the rule runs never runs the other repository's planted
// configuration.
func TestGitSecretsFollowTheRepositoryGitUses(t *testing.T) {
	t.Parallel()
	ws := gitfixture.New(t) // the workspace: no secrets
	ws.Write("README.md", "hello\n")
	ws.Commit("first")
	other := gitfixture.New(t) // a sibling that tracks a .env
	other.Write(".env", "TOKEN=sk-other-canary\n")
	other.Write("src/main.go", "package main\n")
	other.Commit("first")
	if !strings.Contains(other.Run("--no-pager", "log", "-p"), "sk-other-canary") {
		t.Fatal("git log -p of the other repository does not print the secret, so the test shows nothing")
	}
	rel, err := filepath.Rel(ws.Dir, other.Dir)
	if err != nil {
		t.Fatal(err)
	}
	linked := other.Worktree("HEAD") // a linked worktree: .git is a "gitdir:" file
	// Planted last: the fixture's own git commands would run it.
	marker := filepath.Join(t.TempDir(), "PWNED")
	for _, kv := range [][2]string{{"core.fsmonitor", "touch " + marker}, {"core.pager", "touch " + marker},
		{"core.hooksPath", other.Dir}, {"diff.external", "touch " + marker}, {"filter.x.clean", "touch " + marker}} {
		other.Run("config", kv[0], kv[1])
	}
	other.Write(".gitattributes", "* filter=x\n")
	env := &Env{Home: "/nonexistent-home", Workspace: ws.Dir}
	for _, tt := range []struct {
		cmd      string
		explicit bool
	}{
		{"git log -p", false},
		{"git -C " + rel + " log -p", true},
		{"git -C " + other.Dir + " show", true},
		{"git -C / -C " + other.Dir[1:] + " log -p", true},
		{"git -C " + rel + " grep TOKEN", true},
		{"git -C " + rel + " log -p -- src", false},
		{"git -C " + rel + "/src log -p -- .", false},
		{"git -C " + rel + "/src log -p -- ..", true},
		{"git -C " + rel + " log --oneline", false},
		{"git --git-dir=" + rel + "/.git log -p", true},
		{"git --git-dir " + other.Dir + "/.git --work-tree " + other.Dir + " grep TOKEN", true},
		{"git --git-dir=" + rel + "/.git --work-tree=. grep TOKEN", true},
		{"export GIT_DIR=" + other.Dir + "/.git; git log -p", true},
		{"GIT_DIR=" + rel + "/.git git log -p", true},
		{"GIT_DIR=" + rel + "/.git GIT_WORK_TREE=" + rel + " git grep TOKEN", true},
		{"GIT_DIR=" + rel + "/.git true; git log -p", false},
		{"git -C " + linked + " log -p", true},
		{"git --git-dir=" + linked + "/.git log -p", true},
		{"cd " + rel + " && git log -p", true},
	} {
		v := env.Classify(tt.cmd, ws.Dir)
		if got := v.Class == Explicit; got != tt.explicit || got && !strings.Contains(v.Reason(), ".env") {
			t.Errorf("Classify(%q) = %v %q; want explicit=%v naming .env", tt.cmd, v.Class, v.Reason(), tt.explicit)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("classifying ran the other repository's planted configuration")
	}
}

// A secret that only older commits hold (added, then deleted) is printed
// by git log -p, git show of either commit, git diff between revisions and
// git grep of an old revision: those need explicit approval. The work
// tree and the index (git diff, git grep) no longer hold it.
func TestGitSecretsOnlyInHistory(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write("README.md", "hello\n")
	r.Write("src/main.go", "package main\n")
	r.Write(".env", "TOKEN=sk-history-canary\n")
	r.Commit("add")
	r.Remove(".env")
	r.Commit("remove")
	r.Write("README.md", "hello again\n")
	r.Commit("third")
	for _, args := range [][]string{{"log", "-p"}, {"show", "HEAD~1"}, {"diff", "HEAD~2", "HEAD"}, {"grep", "TOKEN", "HEAD~2"}} {
		if out, _ := r.RunIn(r.Dir, append([]string{"--no-pager"}, args...)...); !strings.Contains(out, "sk-history-canary") {
			t.Fatalf("git %v does not print the old secret, so the test shows nothing: %q", args, out)
		}
	}
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	const why = "an older commit added .env"
	for _, tt := range []struct {
		cmd  string
		want Class
	}{
		{"git log -p", Explicit},
		{"git log --all -p", Explicit},
		{"git show HEAD~1", Explicit},
		{"git show HEAD~2", Explicit},
		{"git diff HEAD~2 HEAD", Explicit},
		{"git grep TOKEN HEAD~2", Explicit},
		{"git show HEAD~2:.env", Explicit},
		{"git log -p -- src", ReadOnly},
		{"git log --oneline", ReadOnly},
		{"git log --stat", ReadOnly},
		{"git diff", ReadOnly},
		{"git grep TOKEN", ReadOnly},
		{"git status --short", ReadOnly},
	} {
		v := env.Classify(tt.cmd, "")
		if v.Class != tt.want || tt.want == Explicit && !strings.Contains(v.Reason(), ".env") {
			t.Errorf("Classify(%q) = %v %q; want %v", tt.cmd, v.Class, v.Reason(), tt.want)
		}
	}
	if v := env.Classify("git log -p", ""); !strings.Contains(v.Reason(), why) {
		t.Errorf("the reason does not say where the secret is: %q", v.Reason())
	}
}

// The history listing is cached per repository state: a secret committed
// (and removed again) after the first classification is seen at the next,
// on another branch or under a new name too.
func TestGitHistorySecretsFollowNewCommits(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write("README.md", "hello\n")
	r.Write("notes.txt", "TOKEN=sk-renamed\n")
	r.Commit("first")
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	if v := env.Classify("git log -p", ""); v.Class != ReadOnly {
		t.Fatalf("no secret yet: git log -p = %v %q", v.Class, v.Reason())
	}
	r.Run("mv", "notes.txt", ".env.local")
	r.Commit("rename")
	r.Remove(".env.local")
	r.Commit("remove")
	if v := env.Classify("git log -p", ""); v.Class != Explicit || !strings.Contains(v.Reason(), ".env.local") {
		t.Fatalf("after a rename into a secret name and its removal: git log -p = %v %q", v.Class, v.Reason())
	}
	b := gitfixture.New(t)
	b.Write("README.md", "hello\n")
	b.Commit("first")
	envB := &Env{Home: "/nonexistent-home", Workspace: b.Dir}
	if v := envB.Classify("git log -p --all", ""); v.Class != ReadOnly {
		t.Fatalf("no secret yet: %v %q", v.Class, v.Reason())
	}
	b.Run("checkout", "-q", "-b", "feature")
	b.Write("deploy/id_rsa", "not a key\n")
	b.Commit("key")
	b.Run("checkout", "-q", "main")
	if v := envB.Classify("git log -p --all", ""); v.Class != Explicit || !strings.Contains(v.Reason(), "deploy/id_rsa") {
		t.Fatalf("a key on another branch: git log -p --all = %v %q", v.Class, v.Reason())
	}
}
