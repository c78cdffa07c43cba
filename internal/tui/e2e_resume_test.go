package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// transcriptBlock is the part of a screen from the row holding first through
// the row holding last.
func transcriptBlock(screen, first, last string) string {
	i := strings.Index(screen, first)
	j := strings.Index(screen, last)
	if i < 0 || j < i {
		return ""
	}
	rows := strings.Split(screen[i:j+len(last)], "\n")
	for k, r := range rows {
		rows[k] = strings.TrimRight(r, " ")
	}
	return strings.Join(rows, "\n")
}

// A session looks the same when it is resumed (issue 14): the second run's
// transcript, rebuilt from the session file, matches what the first showed.
func TestE2EResumedSessionLooksLikeTheLiveOne(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		fakemodel.Tools(toolCall("b1", "Bash", map[string]any{"command": "echo out; exit 3"}),
			toolCall("w1", "File", map[string]any{"action": "write", "path": "a.txt", "content": "one\ntwo\n"})),
		fakemodel.Tools(toolCall("e1", "File", map[string]any{"action": "edit", "path": "a.txt", "search": "two", "replace": "three"})),
		fakemodel.Text("Done: the edit is in."))
	home, ws := t.TempDir(), t.TempDir()
	p := startTUIAt(t, srv, home, ws, "--approval-policy", "bypass")
	p.line("do the work")
	p.waitFor("● Done: the edit is in.", "✓ done")
	live := transcriptBlock(p.capture(), "✕ Bash echo out", "● Done: the edit is in.")
	for _, want := range []string{"✕ Bash echo out; exit 3", "a.txt  +1 −1", "+three"} {
		if !strings.Contains(live, want) {
			t.Fatalf("live screen lacks %q:\n%s", want, p.capture())
		}
	}
	p.keys("C-c", "C-c")
	p.waitFor("[codewhale exited: 0]")

	r := startTUIAt(t, srv, home, ws, "-c")
	r.waitFor("Resumed session", "● Done: the edit is in.")
	// The first frames may predate the window size; compare once settled.
	var resumed string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if resumed = transcriptBlock(r.capture(), "✕ Bash echo out", "● Done: the edit is in."); resumed == live {
			break
		}
	}
	if resumed != live {
		t.Logf("resumed screen:\n%s", r.capture())
		t.Errorf("the resumed screen differs\n--- live\n%s\n--- resumed\n%s", live, resumed)
	}
}

func toolCall(id, name string, args map[string]any) fakemodel.Call {
	raw, _ := json.Marshal(args)
	return fakemodel.Call{ID: id, Name: name, Args: string(raw)}
}

// A damaged session resumed in the TUI (issue 23 §8): a notice says what
// the resume repaired, one line per dropped or truncated record, and where
// the file as it was is kept.
// README.md "Sessions": the TUI says in the transcript once what was dropped or truncated and where the copy is
func TestE2EResumeOfADamagedSessionSaysWhatWasRepaired(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Answer one."), fakemodel.Text("Answer two."))
	home, ws := t.TempDir(), t.TempDir()
	p := startTUIAt(t, srv, home, ws)
	p.line("first question")
	p.waitFor("● Answer one.")
	p.line("second question")
	p.waitFor("● Answer two.", "✓ done")
	p.keys("C-c", "C-c")
	p.waitFor("[codewhale exited: 0]")

	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1]
	corrupt := -1
	for i, l := range lines {
		if strings.Contains(l, `"answer one`) || strings.Contains(l, "Answer one.") {
			corrupt = i
			break
		}
	}
	if corrupt < 0 {
		t.Fatalf("no line holds the first answer:\n%s", data)
	}
	lines[corrupt] = "{\"type\":\"message\",\"mess\x00garbage\n"
	last := len(lines) - 1
	lines[last] = lines[last][:len(lines[last])/2]
	os.WriteFile(files[0], []byte(strings.Join(lines, "")), 0o600)

	r := startTUIAt(t, srv, home, ws, "-c")
	r.waitFor("[session_recovery] Recovered", "the file as it was is kept",
		fmt.Sprintf("line %d: not valid JSON", corrupt+1), fmt.Sprintf("line %d: a truncated final line", last+1))
	kept, _ := filepath.Glob(files[0] + ".damaged-*")
	if len(kept) != 1 {
		t.Errorf("kept copies: %v", kept)
	}
}

// `codewhale resume` with no id at a terminal opens the session picker, and
// the resumed session's prompts are in ↑ history, newest first.
func TestE2EResumeWithoutAnIDPicksAndRecallsThePrompts(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Answer one."), fakemodel.Text("Answer two."))
	home, ws := t.TempDir(), t.TempDir()
	p := startTUIAt(t, srv, home, ws)
	p.line("first question")
	p.waitFor("● Answer one.")
	p.line("second question")
	p.waitFor("● Answer two.", "✓ done")
	p.keys("C-c", "C-c")
	p.waitFor("[codewhale exited: 0]")

	r := launchTUI(t, srv, launch{home: home, ws: ws, ready: "Sessions — Enter resumes"}, "resume")
	r.waitFor("first question")
	time.Sleep(150 * time.Millisecond) // a person reads the list
	r.keys("Enter")
	r.waitFor("Resumed session", "● Answer two.")
	r.keys("Up")
	r.waitFor("❯ second question")
	r.keys("Up")
	r.waitFor("❯ first question")
}
