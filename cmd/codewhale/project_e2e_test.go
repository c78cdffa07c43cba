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
// README.md "Project instructions": the files reach the system prompt below codewhale's rules, the same bytes on every step
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

// `exec "/name args"` expands a user command: the model receives the
// expansion, and the command's mode and allowed-tools narrow its turn.
// CONTRACT.md §17.2: exec '/name args' expands the command and runs it as one turn in its mode with its allowed-tools,
// refusing other calls with the exact text.
// README.md "User commands and skills": codewhale exec "/name args" expands a user command
func TestExecExpandsAUserCommand(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "w", Name: "work_update", Args: `{"todos":[{"content":"should-not-run","status":"pending"}]}`}),
		fakemodel.Text("Reviewed."))
	c := newCLI(t, srv)
	writeFiles(t, c.ws, map[string]string{".codewhale/commands/git/review.md": "---\ndescription: Review a change\n" +
		"mode: plan\nallowed-tools: Git, Read\n---\nReview the change $1, focusing on $2.\n"})
	out, errOut, code := c.run("exec", "--auto", `/git:review HEAD~1 "error handling"`)
	if code != 0 || out != "Reviewed.\n" {
		t.Fatalf("code %d out %q stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Running /git:review from "+filepath.Join(c.ws, ".codewhale", "commands", "git", "review.md")) {
		t.Errorf("stderr %q", errOut)
	}
	first := srv.Requests()[0]
	if got := first.LastUserText(); !strings.HasPrefix(got, "Review the change HEAD~1, focusing on error handling.") {
		t.Errorf("the model got %q", got)
	}
	if names := strings.Join(first.ToolNames(), ","); names != "File,Git" {
		t.Errorf("the command's turn carries %s, want File,Git (Plan mode, allowed-tools Git and Read→File)", names)
	}
	if !srv.Requests()[1].HasToolResult("is not in the allowed-tools list for the current command") {
		t.Errorf("a call outside the command's tools must be refused with the allow-list text:\n%s", toolMessages(srv.Requests()[1]))
	}
	if strings.Contains(toolMessages(srv.Requests()[1]), "To-do") {
		t.Error("the refused call ran")
	}
}

// CONTRACT.md §17.2: an unknown or built-in name is an error listing the commands, and nothing is sent.
func TestExecRefusesAnUnknownOrBuiltinCommand(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	c := newCLI(t, srv)
	writeFiles(t, c.ws, map[string]string{".codewhale/commands/deploy.md": "Deploy it.\n"})
	_, errOut, code := c.run("exec", "/depoly now")
	if code != 1 || !strings.Contains(errOut, "/depoly is not a user command") || !strings.Contains(errOut, "there are /deploy") {
		t.Errorf("code %d stderr %q", code, errOut)
	}
	_, errOut, code = c.run("exec", "/help")
	if code != 1 || !strings.Contains(errOut, "/help is a built-in command of the interactive UI") {
		t.Errorf("code %d stderr %q", code, errOut)
	}
	if len(srv.Requests()) != 0 {
		t.Error("nothing may be sent for a command that does not exist")
	}
}

// A skill's description is in the system prompt; load_skill returns its
// instructions and the files beside them, and one file on request.
// README.md "User commands and skills": a skill's description is in the system prompt; load_skill returns its body and files
func TestSkillIsListedAndLoadSkillReturnsItsBody(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "l", Name: "load_skill", Args: `{"name":"release"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "f", Name: "load_skill", Args: `{"name":"release","file":"scripts/tag.sh"}`}),
		fakemodel.Text("Released."))
	c := newCLI(t, srv)
	writeFiles(t, filepath.Join(c.home, ".codewhale"), map[string]string{
		"skills/release/SKILL.md":       "---\nname: release\ndescription: Cut a release with tags and notes\n---\nSTEP-ONE: bump the version.\n",
		"skills/release/scripts/tag.sh": "git tag -s \"$1\"\n",
	})
	if _, errOut, code := c.run("exec", "--auto", "--mode", "plan", "cut a release"); code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	reqs := srv.Requests()
	if sys := systemText(t, reqs[0]); !strings.Contains(sys, "<skills>") || !strings.Contains(sys, "- release: Cut a release with tags and notes") {
		t.Errorf("the skill is not listed in the system prompt:\n%s", sys)
	}
	body := toolMessages(reqs[1])
	for _, want := range []string{"Skill release (user $CODEWHALE_HOME/skills): Cut a release", "STEP-ONE: bump the version.",
		"Files beside SKILL.md (1): scripts/tag.sh"} {
		if !strings.Contains(body, want) {
			t.Errorf("load_skill result lacks %q:\n%s", want, body)
		}
	}
	if file := toolMessages(reqs[2]); !strings.Contains(file, `git tag -s \"$1\"`) && !strings.Contains(file, `git tag -s "$1"`) {
		t.Errorf("load_skill file result:\n%s", file)
	}
}

// A command's model: frontmatter is the model of its turn's requests, and
// the run says so.
func TestExecUserCommandUsesItsModel(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Summarised."))
	c := newCLI(t, srv)
	writeFiles(t, c.ws, map[string]string{".codewhale/commands/sum.md": "---\nmodel: deepseek-v4-flash\n---\nSummarise $ARGUMENTS.\n"})
	_, errOut, code := c.run("exec", "--auto", "--model", "deepseek-v4-pro", "/sum the README")
	if code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	if got := srv.Requests()[0].Body["model"]; got != "deepseek-v4-flash" {
		t.Errorf("the command's turn asked model %v, want deepseek-v4-flash", got)
	}
	if !strings.Contains(errOut, "/sum uses model deepseek-v4-flash for this turn.") {
		t.Errorf("stderr %q", errOut)
	}
}
