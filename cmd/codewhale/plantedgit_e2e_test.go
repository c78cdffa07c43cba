package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// Only .git/** is a protected write, but git also treats a directory laid
// out as a git directory (HEAD, objects/, refs/) as a repository, and reads
// $XDG_CONFIG_HOME/git/config and ~/.gitconfig. Under Auto-Review a model
// could write such a config with ordinary, auto-approved File writes and
// then run git from the shell as a "read-only" command, which ran the
// planted core.fsmonitor. The shell git must not be read-only there.
func TestPlantedGitConfigDoesNotRunUnderAutoReview(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is needed to show what a planted configuration would run")
	}
	fsmonitor := func(marker string) string {
		return "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch " + marker + "; false\"\n"
	}
	cases := []struct {
		name, command string
		files         func(ws string) map[string]string
	}{
		{"bare layout", "cd evil && git status", func(ws string) map[string]string {
			return map[string]string{"evil/HEAD": "ref: refs/heads/main\n", "evil/config": fsmonitor(filepath.Join(ws, "PWNED")),
				"evil/objects/info/keep": "", "evil/refs/heads/keep": ""}
		}},
		{"XDG config", "XDG_CONFIG_HOME=. git status", func(ws string) map[string]string {
			return map[string]string{"git/config": "[core]\n\tfsmonitor = \"touch " + filepath.Join(ws, "PWNED") + "; false\"\n"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t)
			c := newCLI(t, srv)
			c.config("approval_policy = \"auto\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
			git := exec.Command("git", "init", "-q", c.ws)
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			var writes []fakemodel.Call
			for name, body := range tc.files(c.ws) {
				args, _ := json.Marshal(map[string]string{"action": "write", "path": name, "content": body})
				writes = append(writes, fakemodel.Call{ID: "w" + name, Name: "File", Args: string(args)})
			}
			srv.Push(fakemodel.Tools(writes...), fakemodel.Tools(fakemodel.Call{ID: "sh", Name: "Bash", Args: jsonCommand(tc.command)}),
				fakemodel.Text("done"))
			out, errOut, code := c.run("exec", "--max-turns", "4", "look around")
			reqs := srv.Requests()
			if len(reqs) < 3 {
				t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
			}
			for id, res := range toolResults(reqs[1]) {
				if !strings.Contains(res, "Created") {
					t.Fatalf("the File write %s was not auto-approved, so the test shows nothing: %q", id, res)
				}
			}
			if _, err := os.Stat(filepath.Join(c.ws, "PWNED")); err == nil {
				t.Errorf("%q ran the planted core.fsmonitor under Auto-Review", tc.command)
			}
			if res := toolResults(reqs[2])["sh"]; !strings.Contains(res, "Auto-Review held tool 'Bash'") {
				t.Errorf("%q was not held for review: %q", tc.command, res)
			}
		})
	}
}
