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

// A directory of the workspace on PATH (an activated .venv, direnv's
// PATH_add bin, ./node_modules/.bin) lets a File patch — which can create
// an executable — put a program in front of the system's. Under
// Auto-Review the patch is approved without a person, so the "read-only"
// git status that followed ran the planted git. A command PATH finds in
// the workspace is the workspace's program, never read-only.
func TestPlantedProgramOnPathDoesNotRunUnderAutoReview(t *testing.T) {
	t.Parallel()
	t.Run("Bash", func(t *testing.T) {
		t.Parallel()
		res := runPlantedGit(t, "Bash", jsonCommand("git status"))
		if !strings.Contains(res, "Auto-Review held tool 'Bash'") {
			t.Errorf("git status was not held for review: %q", res)
		}
	})
	// The Git tool is read-only and Auto in every posture; it looks git up
	// on PATH past the workspace's entries.
	t.Run("Git tool", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("git"); err != nil {
			e2e.Missing(t, "the Git tool needs the git binary here")
		}
		res := runPlantedGit(t, "Git", `{"action":"status"}`)
		if !strings.Contains(res, "## ") {
			t.Errorf("the Git tool did not run the real git: %q", res)
		}
	})
}

// runPlantedGit has the model create an executable .venv/bin/git (first on
// PATH) with a File patch under Auto-Review, then call tool with args; it
// fails when the planted git ran and returns the call's result.
func runPlantedGit(t *testing.T, tool, args string) string {
	srv := fakemodel.New(t)
	c := newCLI(t, srv)
	c.config("approval_policy = \"auto\"\n[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n")
	venv := filepath.Join(c.ws, ".venv", "bin")
	c.env = replaceEnv(c.env, "PATH", venv+string(os.PathListSeparator)+os.Getenv("PATH"))
	marker := filepath.Join(c.ws, "PWNED")
	patch := "diff --git a/.venv/bin/git b/.venv/bin/git\nnew file mode 100755\n--- /dev/null\n+++ b/.venv/bin/git\n" +
		"@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch " + marker + "\n"
	patchArgs, _ := json.Marshal(map[string]string{"action": "patch", "patch": patch})
	if out, err := exec.Command("git", "init", "-q", c.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	srv.Push(fakemodel.Tools(fakemodel.Call{ID: "p1", Name: "File", Args: string(patchArgs)}),
		fakemodel.Tools(fakemodel.Call{ID: "sh", Name: tool, Args: args}), fakemodel.Text("done"))
	out, errOut, code := c.run("exec", "--max-turns", "4", "look around")
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("exit %d, %d requests: %s\n%s", code, len(reqs), out, errOut)
	}
	if fi, err := os.Stat(filepath.Join(venv, "git")); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("the patch did not create an executable, so the test shows nothing: %v %v; %q", fi, err, toolResults(reqs[1])["p1"])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s ran the git planted on PATH under Auto-Review", tool)
	}
	return toolResults(reqs[2])["sh"]
}

// $SHELL named by a bare name is looked up past the workspace's PATH
// directories, so a ./bin/sh the model planted never runs the commands, in
// Full Access too.
func TestPlantedShellOnPathIsNotTheShell(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "sh", Name: "Bash", Args: jsonCommand("echo real-shell")}),
		fakemodel.Text("done"))
	c := newCLI(t, srv)
	bin := filepath.Join(c.ws, "bin")
	marker := filepath.Join(c.ws, "PWNED")
	writeFiles(t, c.ws, map[string]string{"bin/sh": "#!/bin/sh\ntouch " + marker + "\necho planted\n"})
	if err := os.Chmod(filepath.Join(bin, "sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = replaceEnv(replaceEnv(c.env, "PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")), "SHELL", "sh")
	out, errOut, code := c.run("exec", "--yolo", "say hi")
	if len(srv.Requests()) < 2 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	res := toolResults(srv.Requests()[1])["sh"]
	if _, err := os.Stat(marker); err == nil || !strings.Contains(res, "real-shell") {
		t.Errorf("the shell planted in the workspace ran the command: %q", res)
	}
}
