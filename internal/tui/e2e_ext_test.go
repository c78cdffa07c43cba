package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// A user command typed in the TUI is offered by the / menu as a user
// command, and its expansion with the typed arguments is what the model
// receives.
func TestE2EUserCommandExpandsWithArguments(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Greeted."))
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{".codewhale/commands/greet.md": "---\ndescription: Greet two people\n" +
		"argument-hint: <a> <b>\n---\nSay hello to $1 and then to $2.\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.keys("-l", "/gre")
	p.waitFor("/greet", "Greet two people · user command")
	p.keys("-l", "et Ada 'Grace Hopper'")
	p.keys("Enter")
	p.waitFor("▎ /greet Ada 'Grace Hopper'", "● Greeted.")
	if got := srv.Requests()[0].LastUserText(); !strings.HasPrefix(got, "Say hello to Ada and then to Grace Hopper.") {
		t.Errorf("the model received %q", got)
	}
}

// initReady is the /init question's bottom edge once it has the keys.
const initReady = "answer · ↑/↓ Enter · Esc cancel"

// /init runs a Plan-mode survey turn with the read-only tools, shows the
// proposed AGENTS.md as a diff, and writes it only after the user says so;
// an existing file is handed to the model to improve.
// CONTRACT.md §17.6: /init in the TUI writes AGENTS.md only after the person's yes.
// README.md "Project instructions": /init writes AGENTS.md only after the diff is seen and Write it is chosen
func TestE2EInitWritesAgentsMDAfterApproval(t *testing.T) {
	t.Parallel()
	proposal := "# Demo\n\n## Build and test\n\n```sh\ngo test ./...\n```\n\nKeep functions short.\n"
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "l", Name: "File", Args: `{"action":"list"}`}),
		fakemodel.Text("I read go.mod and main.go.\n\n<AGENTS.md>\n"+proposal+"</AGENTS.md>\n"))
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{"go.mod": "module demo\n", "main.go": "package main\n", "AGENTS.md": "# Demo\n\nOld rule.\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.line("/init")
	p.waitFor("Write AGENTS.md?", "+Keep functions short.", "-Old rule.", "1. Write it", "▸ 2. Show the whole diff")
	p.focusCard("Write AGENTS.md?", initReady)
	first := srv.Requests()[0]
	if names := strings.Join(first.ToolNames(), ","); strings.Contains(names, "Bash") || !strings.Contains(names, "File") {
		t.Errorf("the survey turn must be Plan mode with the read-only tools, got %s", names)
	}
	if got := first.LastUserText(); !strings.Contains(got, "improve it rather than replace it") || !strings.Contains(got, "Old rule.") {
		t.Errorf("the existing AGENTS.md was not handed to the model: %q", got)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "AGENTS.md")); string(data) != "# Demo\n\nOld rule.\n" {
		t.Fatalf("AGENTS.md changed before approval: %q", data)
	}
	p.keys("Enter") // the default shows the whole diff; it never writes
	p.waitFor("Proposed AGENTS.md (diff)", "+++ b/AGENTS.md")
	if data, _ := os.ReadFile(filepath.Join(ws, "AGENTS.md")); string(data) != "# Demo\n\nOld rule.\n" {
		t.Fatalf("Enter on the default wrote AGENTS.md: %q", data)
	}
	p.keys("q")
	p.waitFor("Write AGENTS.md?", initReady)
	p.keys("1")
	p.waitFor("Wrote " + filepath.Join(ws, "AGENTS.md"))
	if data, _ := os.ReadFile(filepath.Join(ws, "AGENTS.md")); string(data) != proposal {
		t.Errorf("AGENTS.md = %q, want %q", data, proposal)
	}
}

// The proposal opens when the survey turn ends, perhaps while the person
// types their next message: it opens without focus, the keys they type go
// on into the composer, none of them answers the question (1 would write,
// q would discard), and only Tab and then an answer writes the file.
// README.md "Project instructions": typing ahead never answers the /init question
func TestE2EInitTypeAheadNeverAnswersTheProposal(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
		return fakemodel.Text("Surveyed.\n<AGENTS.md>\n# Fresh\n\nRun make test.\n</AGENTS.md>")
	})
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{"Makefile": "test:\n\tgo test ./...\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.line("/init")
	p.waitFor("Esc to interrupt")

	const typed = "next 1 please run 2 and 3 then q quit"
	tick := time.NewTicker(100 * time.Millisecond) // a person's typing pace, not a synchronisation wait
	defer tick.Stop()
	openAt := -1
	// Two characters per tmux call: fewer processes to start on a loaded
	// machine, so the pace stays a typist's rather than a pause.
	for i := 0; i < len(typed); i += 2 {
		if i == 4 {
			close(release)
		}
		p.keys("-l", typed[i:min(i+2, len(typed))])
		<-tick.C
		if openAt < 0 && strings.Contains(p.capture(), "Write AGENTS.md?") {
			openAt = i
		}
	}
	if openAt < 0 || openAt > len(typed)-12 {
		t.Fatalf("the proposal opened at key %d of %d; the test needs it open while typing goes on:\n%s", openAt, len(typed), p.capture())
	}
	t.Logf("proposal on screen from key %d; %d keys typed while it was open", openAt, len(typed)-openAt-1)
	agents := filepath.Join(ws, "AGENTS.md")
	if _, err := os.Stat(agents); err == nil {
		t.Fatalf("a typed key wrote AGENTS.md:\n%s", p.capture())
	}
	p.waitFor("Write AGENTS.md?", "+Run make test.", "❯ "+typed, views.UnfocusedHint)
	if _, err := os.Stat(agents); err == nil {
		t.Fatal("AGENTS.md was written before anyone answered")
	}
	p.keys("Tab")
	p.waitFor("Write AGENTS.md?", initReady)
	p.keys("1")
	p.waitFor("Wrote "+agents, "❯ "+typed)
	if data, _ := os.ReadFile(agents); string(data) != "# Fresh\n\nRun make test.\n" {
		t.Errorf("AGENTS.md = %q", data)
	}
}

// Esc keeps the proposal for the next /init; discarding leaves the file as
// it was and says so; an answer without a proposal block writes nothing
// and says why.
func TestE2EInitDiscardAndNoProposal(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Text("<AGENTS.md>\n# New\n</AGENTS.md>"),
		fakemodel.Text("It is a Go module; I would describe the layout."))
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{"CLAUDE.md": "Claude rule.\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.line("/init")
	p.waitFor("Write AGENTS.md?", "improves "+filepath.Join(ws, "CLAUDE.md"), "+# New")
	p.focusCard("Write AGENTS.md?", initReady)
	p.keys("Escape") // Esc keeps the survey's proposal, and /init asks again without a new turn
	p.waitFor("/init: the proposal is kept; /init asks again")
	p.line("/init")
	p.focusCard("Write AGENTS.md?", initReady)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("/init after Esc surveyed again: %d requests", n)
	}
	p.keys("3")
	p.waitFor("/init: proposal discarded;")
	p.line("/init")
	p.waitFor("/init: the answer has no <AGENTS.md>")
	if _, err := os.Stat(filepath.Join(ws, "AGENTS.md")); err == nil {
		t.Error("AGENTS.md was written")
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "Claude rule.") {
		t.Errorf("CLAUDE.md was not handed to the model: %q", got)
	}
}

// codewhale init in a terminal shows the diff and asks; what was typed
// while the survey ran (here "yes" and Enter) is discarded, so only an
// answer typed after the question appears writes the file.
func TestE2EInitCommandAsksAndIgnoresTypeAhead(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply {
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
		return fakemodel.Text("Surveyed.\n<AGENTS.md>\n# Fresh\n\nRun make test.\n</AGENTS.md>")
	})
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{"Makefile": "test:\n\tgo test ./...\n"})
	agents := filepath.Join(ws, "AGENTS.md")
	p := launchTUI(t, srv, launch{home: t.TempDir(), ws: ws, ready: "Surveying"}, "init")
	p.line("yes") // typed ahead, while the model is still surveying
	p.waitFor("\nyes\n")
	close(release)
	p.waitFor("+Run make test.", "Write "+agents+"? [y/N]")
	if p.seenWithin(time.Second, "Wrote") {
		t.Fatalf("the typed-ahead yes answered the question:\n%s", p.capture())
	}
	if _, err := os.Stat(agents); err == nil {
		t.Fatal("AGENTS.md was written before anyone answered")
	}
	p.line("y")
	p.waitFor("Wrote "+agents, "[codewhale exited: 0]")
	if data, _ := os.ReadFile(agents); string(data) != "# Fresh\n\nRun make test.\n" {
		t.Errorf("AGENTS.md = %q", data)
	}
}

func systemPrompt(t *testing.T, r *fakemodel.Request) string {
	t.Helper()
	ms := r.Messages()
	if len(ms) == 0 || ms[0]["role"] != "system" {
		t.Fatalf("the request has no system message: %v", ms)
	}
	s, _ := ms[0]["content"].(string)
	return s
}

// An AGENTS.md edited between two turns of a running session is read again
// as the next turn starts: the UI says so and that turn's system prompt
// carries the new text (and no longer the old).
func TestE2EInstructionsEditedBetweenTurnsApplyToTheNextTurn(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("First."), fakemodel.Text("Second."))
	ws := t.TempDir()
	fstree.Write(t, ws, map[string]string{"AGENTS.md": "OLD-RULE: tabs.\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.line("one")
	p.waitFor("● First.")
	fstree.Write(t, ws, map[string]string{"AGENTS.md": "NEW-RULE: spaces.\n"})
	p.line("two")
	p.waitFor("Project instructions changed on disk (AGENTS.md edited)", "● Second.")
	reqs := srv.Requests()
	first, second := systemPrompt(t, reqs[0]), systemPrompt(t, reqs[1])
	if !strings.Contains(first, "OLD-RULE: tabs.") || !strings.Contains(second, "NEW-RULE: spaces.") || strings.Contains(second, "OLD-RULE") {
		t.Errorf("first turn's prompt has OLD-RULE: %v; second's has NEW-RULE: %v, OLD-RULE: %v",
			strings.Contains(first, "OLD-RULE"), strings.Contains(second, "NEW-RULE"), strings.Contains(second, "OLD-RULE"))
	}
}
