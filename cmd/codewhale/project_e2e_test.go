package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// systemText is a request's system message.
func systemText(t *testing.T, r *fakemodel.Request) string {
	t.Helper()
	ms := r.Messages()
	if len(ms) == 0 || ms[0]["role"] != "system" {
		t.Fatalf("the request has no system message: %v", ms)
	}
	s, _ := ms[0]["content"].(string)
	return s
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// The repository root's AGENTS.md and the subfolder's (the workspace) reach
// the first request's system prompt, outermost first, below the product's
// rules; the second step's system prompt is byte for byte the first's.
func TestProjectInstructionsReachTheSystemPromptInOrder(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "g", Name: "Git", Args: `{"action":"status"}`}),
		fakemodel.Text("Done."))
	c := newCLI(t, srv)
	gitInit(t, c.ws)
	writeFiles(t, c.ws, map[string]string{
		"AGENTS.md":           "ROOT-RULE: run make test before you finish.\n",
		"svc/CLAUDE.md":       "SVC-RULE: the service speaks JSON.\n",
		"svc/AGENTS.md":       "SUB-RULE: handlers live in handlers/.\n",
		"elsewhere/AGENTS.md": "SIBLING-RULE: never here.\n",
	})
	writeFiles(t, filepath.Join(c.home, ".codewhale"), map[string]string{"AGENTS.md": "GLOBAL-RULE: answer briefly.\n"})
	out, errOut, code := c.run("exec", "--auto", "-C", filepath.Join(c.ws, "svc"), "check the status")
	if code != 0 {
		t.Fatalf("code %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %d", len(reqs))
	}
	sys := systemText(t, reqs[0])
	at := func(s string) int { return strings.Index(sys, s) }
	rules, block := at("You are codewhale"), at("<project_instructions>")
	g, r, s := at("GLOBAL-RULE"), at("ROOT-RULE"), at("SUB-RULE")
	if rules != 0 || block < rules || !(block < g && g < r && r < s) {
		t.Errorf("order: rules %d, block %d, global %d, root %d, sub %d\n%s", rules, block, g, r, s, sys)
	}
	if at("SVC-RULE") >= 0 || at("SIBLING-RULE") >= 0 {
		t.Errorf("a file that does not apply reached the prompt:\n%s", sys)
	}
	if second := systemText(t, reqs[1]); second != sys {
		t.Errorf("the system prompt changed between steps:\n%s\n----\n%s", sys, second)
	}
}

// An instructions file over the per-file bound is cut with a receipt the
// model reads, and the rest is never sent.
func TestOversizedInstructionsAreCutInTheRequest(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c := newCLI(t, srv)
	gitInit(t, c.ws)
	body := strings.Repeat("keep this line of guidance\n", 1500) + "TAIL-MARKER past the bound\n" // 40 527 bytes
	writeFiles(t, c.ws, map[string]string{"AGENTS.md": body})
	if _, errOut, code := c.run("exec", "--auto", "hello"); code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	sys := systemText(t, srv.Requests()[0])
	receipt := "[codewhale: " + filepath.Join(canonicalPath(t, c.ws), "AGENTS.md") + " was cut here at "
	if !strings.Contains(sys, receipt) || !strings.Contains(sys, "of 40527 bytes (the 32 KiB limit per file)") {
		t.Errorf("no receipt %q in:\n%s", receipt, sys[len(sys)-600:])
	}
	if strings.Contains(sys, "TAIL-MARKER") {
		t.Error("text beyond the bound was sent")
	}
}

func canonicalPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
