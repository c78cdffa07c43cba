package shellpolicy

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// A repository (real git) that tracks a .env and config/.env.production:
// a git that prints blob content needs explicit approval, naming the file;
// names, messages, counts and other files stay read-only.
// README.md "Modes and permissions": shell gits that would print a committed secret file (git show HEAD:.env, whole-commit forms when the index tracks one) need explicit approval.
func TestGitPrintingCommittedSecrets(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write("README.md", "hello\n")
	r.Write("src/main.go", "package main\n")
	r.Write(".env", "TOKEN=sk-committed-canary\n")
	r.Write("config/.env.production", "TOKEN=x\n")
	r.Commit("first")
	r.Write("README.md", "hello again\n")
	r.Commit("second")
	blob := strings.TrimSpace(r.Run("rev-parse", "HEAD:.env"))
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	const why = "would print a committed secret file"
	for _, tt := range []struct {
		cmd  string
		want Class
	}{
		{"git show HEAD:.env", Explicit},
		{"git show HEAD~1:config/.env.production", Explicit},
		{"git show :.env", Explicit},
		{"git show :0:.env", Explicit},
		{"git --no-pager show HEAD:./.env", Explicit},
		{"git show HEAD:README.md", ReadOnly},
		{"git show", Explicit},
		{"git show HEAD~1", Explicit},
		{"git show --stat HEAD~1", ReadOnly},
		{"git show -s --format=%s HEAD~1", ReadOnly},
		{"git log -p", Explicit},
		{"git log --patch -1", Explicit},
		{"git log -p -- src", ReadOnly},
		{"git log -p -- config", Explicit},
		{"git log -p -- '*.go'", Explicit}, // a glob may reach anything
		{"git log --oneline -5", ReadOnly},
		{"git log --stat", ReadOnly},
		{"git diff HEAD~1", Explicit},
		{"git diff", Explicit},
		{"git diff HEAD~1 -- README.md", ReadOnly},
		{"git diff HEAD~1 README.md", ReadOnly},
		{"git diff --stat HEAD~1", ReadOnly},
		{"git diff --name-only HEAD~1", ReadOnly},
		{"git blame README.md", ReadOnly},
		{"git cat-file -p HEAD:.env", Explicit},
		{"git cat-file blob HEAD:.env", Explicit},
		{"git cat-file -p " + blob, Explicit},
		{"git cat-file -p HEAD:README.md", ReadOnly},
		{"git cat-file -t " + blob, ReadOnly},
		{"git grep TOKEN", Explicit},
		{"git grep -e TOKEN HEAD~1", Explicit},
		{"git grep -l TOKEN", ReadOnly},
		{"git grep TOKEN -- src", ReadOnly},
		{"git grep TOKEN -- config", Explicit},
		{"git archive HEAD", Explicit},
		{"git stash show -p", Explicit},
		{"git status --short", ReadOnly},
		{"git ls-files", ReadOnly},
	} {
		v := env.Classify(tt.cmd, "")
		if v.Class != tt.want || tt.want == Explicit && !strings.Contains(v.Reason(), why) && !strings.Contains(v.Reason(), "secret") {
			t.Errorf("Classify(%q) = %v %q; want %v", tt.cmd, v.Class, v.Reason(), tt.want)
		}
	}
	if v := env.Classify("git show HEAD~1", ""); !strings.Contains(v.Reason(), "the repository tracks .env") {
		t.Errorf("the reason does not name the tracked file: %q", v.Reason())
	}
	if v := env.Classify("git show HEAD:.env", ""); !strings.Contains(v.Reason(), "HEAD:.env") {
		t.Errorf("the reason does not name the object: %q", v.Reason())
	}
}

// The tracked-file list follows the index: untracking the secrets makes a
// whole-commit show read-only again, tracking one makes it explicit, even
// with the list cached in between.
func TestGitTrackedSecretsFollowTheIndex(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write("README.md", "hello\n")
	r.Commit("first")
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	if v := env.Classify("git log -p", ""); v.Class != ReadOnly {
		t.Fatalf("no secret tracked: git log -p = %v %q", v.Class, v.Reason())
	}
	r.Write("deploy/id_ed25519", "not a key\n")
	r.Run("add", "deploy/id_ed25519")
	if v := env.Classify("git log -p", ""); v.Class != Explicit || !strings.Contains(v.Reason(), "deploy/id_ed25519") {
		t.Fatalf("after git add: git log -p = %v %q", v.Class, v.Reason())
	}
	r.Run("rm", "--cached", "-q", "deploy/id_ed25519")
	if v := env.Classify("git log -p", ""); v.Class != ReadOnly {
		t.Fatalf("after git rm --cached: git log -p = %v %q", v.Class, v.Reason())
	}
}
