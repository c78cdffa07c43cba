package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/session"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/treestate"
)

// A turn's Bash changes (an edit, a new file, a deleted file) are taken back
// by /undo, which asks whether the conversation drops the turn too; /diff
// shows what the session changed, under tmux.
// README.md "Undo": /diff shows the session's changes as a diff in the pager and /undo takes a turn back
func TestE2EUndoAndDiff(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		bashCall("c1", "printf 'changed\\n' > notes.md && printf 'new\\n' > added.txt && rm old.txt"),
		fakemodel.Text("Edited."))
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.md"), []byte("original\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "old.txt"), []byte("keep me\n"), 0o644)
	p := startTUIAt(t, srv, home, ws)
	p.line("edit the notes")
	p.focusCard("┌ approval", approvalReady)
	p.keys("y")
	p.waitFor("● Edited.", "✓ done")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "changed\n" {
		t.Fatalf("the turn did not run: %q", b)
	}
	p.line("/diff")
	p.waitFor("Changes this session made", "-original", "+changed", "+new")
	p.keys("q")
	p.line("/undo")
	p.waitFor("Undo the last turn", `Turn "edit the notes"`, "reverted notes.md", "removed added.txt", "restored old.txt",
		"1. Undo the files and drop the turn from the conversation")
	p.keys("1")
	p.waitFor("Undid the file changes of the last turn", "3 file(s)", "Dropped 4 message(s) from the conversation")
	if strings.Contains(p.capture(), "▎ edit the notes") {
		t.Errorf("the dropped turn is still in the transcript:\n%s", p.capture())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "original\n" {
		t.Errorf("notes.md = %q after /undo", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "keep me\n" {
		t.Errorf("old.txt = %q after /undo", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "added.txt")); !os.IsNotExist(err) {
		t.Error("added.txt survived /undo")
	}
	// The session file holds the cut, and the dropped turn above it.
	metas, err := session.List(filepath.Join(home), session.Query{})
	if err != nil || len(metas) != 1 || metas[0].MessageCount != 0 {
		t.Fatalf("sessions %+v %v", metas, err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, "sessions", metas[0].ID+".jsonl"))
	if !strings.Contains(string(raw), "edit the notes") || !strings.Contains(string(raw), `"type":"cut"`) {
		t.Errorf("the journal lost the dropped turn:\n%s", raw)
	}
	p.line("/undo")
	p.waitFor("Nothing to undo")
}

func fingerprint(t *testing.T, root string, skip ...string) string {
	return treestate.Fingerprint(t, root, skip...)
}

func fileCall(id string, args map[string]any) fakemodel.Reply {
	b, _ := json.Marshal(args)
	return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: string(b)})
}

// One turn through the real binary — a File edit, a Bash sed -i, chmod, a
// deleted file, a renamed directory, a binary rewrite, a retargeted
// symlink and a File write of a new file — is reverted byte for byte by
// /undo, mode bits too, in a git repository and in a plain folder. The
// user's .git is unchanged (objects, refs, index, config); an ignored file
// and an oversized new file are left alone, and the card names the
// oversized one.
func TestE2EUndoRevertsATurnByteForByte(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("git=%v", repo), func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			seedWorkspace(t, ws, repo)
			gitBefore := ""
			if repo {
				gitBefore = fingerprint(t, filepath.Join(ws, ".git"))
			}
			srv := fakemodel.New(t,
				fileCall("r1", map[string]any{"action": "read", "path": "main.go"}),
				fileCall("e1", map[string]any{"action": "edit", "path": "main.go", "search": "func main() {}", "replace": "func main() { println(1) }"}),
				bashCall("b1", `sed -i 's/echo run/echo ran/' run.sh && chmod +x run.sh && rm doomed.txt && mv pkg lib && `+
					`printf '\377\000changed' > logo.bin && ln -sfn added.txt link.go && printf 'rebuilt\n' > build/out.o && `+
					`head -c 11000000 /dev/zero > big.bin`),
				fileCall("w1", map[string]any{"action": "write", "path": "added.txt", "content": "new\n"}),
				fakemodel.Text("All done."))
			p := startTUIAt(t, srv, t.TempDir(), ws)
			want := fingerprint(t, ws, ".git", "build")
			p.keys("BTab", "BTab") // Full Access: no approval cards in this test
			p.waitFor("Full Access")
			p.line("change everything")
			p.waitFor("● All done.", "✓ done")
			if fingerprint(t, ws, ".git", "build") == want {
				t.Fatal("the turn changed nothing")
			}
			p.line("/undo")
			p.waitFor("Undo the last turn", "Not recorded, so left as they are (1): big.bin", "2. Undo the files, keep the conversation")
			p.keys("2")
			p.waitFor("Undid the file changes of the last turn", "The conversation still includes the turn")
			os.Remove(filepath.Join(ws, "big.bin")) // left alone, as the card said
			if got := fingerprint(t, ws, ".git", "build"); got != want {
				t.Errorf("not restored byte for byte:\n got %s\nwant %s", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "build", "out.o")); string(b) != "rebuilt\n" {
				t.Errorf("the ignored file was touched: %q", b)
			}
			if repo {
				if got := fingerprint(t, filepath.Join(ws, ".git")); got != gitBefore {
					t.Errorf("the user's .git changed:\n%s\n---\n%s", gitBefore, got)
				}
			}
		})
	}
}

func seedWorkspace(t *testing.T, ws string, repo bool) {
	t.Helper()
	files := map[string]string{"main.go": "package main\n\nfunc main() {}\n", "run.sh": "#!/bin/sh\necho run\n",
		"doomed.txt": "delete me\n", "pkg/a.go": "package pkg\n", "pkg/sub/b.go": "package sub\n",
		"logo.bin": "\x00\x01\x02\xff\xfe binary", ".gitignore": "build/\n", "build/out.o": "ignored output\n"}
	for name, body := range files {
		path := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("main.go", filepath.Join(ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	if repo {
		cmd := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.name=u -c user.email=u@x commit -qm init")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git: %v\n%s", err, out)
		}
	}
}

// /restore lists the turns with their files; restoring to before the first
// of two turns takes both back (and the conversation, as chosen), and
// /undo takes the restore back.
// README.md "Undo": /restore and its undo end to end
func TestE2ERestoreAndItsUndo(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t,
		bashCall("c1", "printf 'v1\\n' > notes.md"), fakemodel.Text("Wrote v1."),
		bashCall("c2", "printf 'v2\\n' > notes.md && printf 'x\\n' > todo.md"), fakemodel.Text("Wrote v2."))
	ws := t.TempDir()
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.keys("BTab", "BTab")
	p.waitFor("Full Access")
	// "✓ done" beside each answer: the turn, and the checkpoint that ends
	// it, is over before the next line is typed (the picker lists what the
	// checkpoints say when it opens).
	p.line("write v1")
	p.waitFor("● Wrote v1.", "✓ done")
	p.line("write v2")
	p.waitFor("● Wrote v2.", "✓ done")
	p.line("/restore")
	p.waitFor("Restore the workspace to before a turn", "write v2", "2 file(s): M notes.md, A todo.md", "1 file(s): A notes.md")
	p.keys("Down", "Enter")
	p.waitFor("Restore the workspace to before this turn", `Turn "write v1"`, `Turn "write v2"`, "removed notes.md",
		"1. Restore the files and drop the turn from the conversation")
	p.keys("1")
	p.waitFor("Restored the workspace to before", "Dropped 8 message(s) from the conversation")
	for _, name := range []string{"notes.md", "todo.md"} {
		if _, err := os.Stat(filepath.Join(ws, name)); !os.IsNotExist(err) {
			t.Errorf("%s survived the restore", name)
		}
	}
	p.line("/undo")
	p.waitFor("taking a restore back changes only files", "1. Undo the files")
	p.keys("1")
	p.waitFor("Undid the file changes of the last turn")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "v2\n" {
		t.Errorf("notes.md = %q after undoing the restore", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "todo.md")); string(b) != "x\n" {
		t.Errorf("todo.md = %q after undoing the restore", b)
	}
}

// Esc Esc on an empty composer lists the earlier messages; picking one
// forks the conversation from before it, with the message in the composer;
// the original session stays in the sessions list.
// README.md "TUI keys": Esc Esc on an empty composer edits an earlier message in a fork
func TestE2EEscEscEditsAMessageInAFork(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("First answer."), fakemodel.Text("Second answer."), fakemodel.Text("Edited answer."))
	home := t.TempDir()
	p := startTUIAt(t, srv, home, t.TempDir())
	p.line("first question")
	p.waitFor("● First answer.")
	p.line("second question")
	// "✓ done" beside the answer: the turn is over (Esc during a turn is no
	// double-Esc, it is nothing).
	p.waitFor("● Second answer.", "✓ done")
	escEsc(t, p)
	p.waitFor("Edit an earlier message", "second question", "first question")
	p.keys("Down", "Enter")
	p.waitFor("Forked session", "(0 message(s) copied)", "❯ first question")
	if strings.Contains(p.capture(), "Second answer.") {
		t.Errorf("the fork still shows the later turn:\n%s", p.capture())
	}
	p.keys("C-u")
	p.line("first question, edited")
	p.waitFor("● Edited answer.")
	metas, err := session.List(home, session.Query{})
	if err != nil || len(metas) != 2 {
		t.Fatalf("sessions: %+v %v", metas, err)
	}
	byCount := map[int]session.Meta{}
	for _, m := range metas {
		byCount[m.MessageCount] = m
	}
	if orig, fork := byCount[4], byCount[2]; orig.ID == "" || fork.ParentSessionID != orig.ID || fork.Title != "first question, edited" {
		t.Errorf("original %+v, fork %+v", orig, fork)
	}
}

// escEsc presses Esc twice on an idle, empty composer, the second time once
// the first one's hint shows. The two must fall within escTwice; a loaded
// machine can take longer than that between two tmux commands, and then the
// second Esc only arms the hint again, so the pair is tried up to three times
// (2.5 s: escTwice in rewind.go, 1.5 s, and a second of slack).
func escEsc(t *testing.T, p *pane) {
	t.Helper()
	for try := 0; try < 3; try++ {
		p.keys("Escape")
		p.waitFor("Esc again to edit an earlier message")
		p.keys("Escape")
		if p.seenWithin(2500*time.Millisecond, "Edit an earlier message") {
			return
		}
	}
	t.Fatalf("Esc Esc never opened the earlier messages:\n%s", p.capture())
}

// A symbolic link planted where the turn's directory was, after the turn
// (issue 23 §8): the /undo card says the path is behind a link now, and
// the overwrite removes the link, restores the person's file as a file in
// a real directory, says so, and writes nothing outside.
// README.md "Undo": the card says a link was planted and the undo restores the file as a real file
func TestE2EUndoSurvivesAPlantedLink(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "notes", "todo.txt"), []byte("the person's notes\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "todo.txt"), []byte("outside\n"), 0o600)
	git := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.name=u -c user.email=u@x commit -qm init")
	git.Dir = ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	srv := fakemodel.New(t, fileCall("w1", map[string]any{"action": "write", "path": "notes/todo.txt", "content": "rewritten\n"}),
		fakemodel.Text("Rewrote the notes."))
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.keys("BTab", "BTab") // Full Access: no approval cards in this test
	p.waitFor("Full Access")
	p.line("rewrite the notes")
	p.waitFor("● Rewrote the notes.", "✓ done")
	before := fingerprint(t, outside)
	if err := os.RemoveAll(filepath.Join(ws, "notes")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "notes")); err != nil {
		t.Fatal(err)
	}
	p.line("/undo")
	p.waitFor("Undo the last turn", "notes is a symbolic link now", "2. Undo the files (overwriting 1")
	p.keys("2")
	p.waitFor("Undid the file changes of the last turn", "Note: notes was a symbolic link to")
	if fi, err := os.Lstat(filepath.Join(ws, "notes")); err != nil || !fi.IsDir() {
		t.Fatalf("notes is not a directory again: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes", "todo.txt")); string(b) != "the person's notes\n" {
		t.Errorf("notes/todo.txt = %q", b)
	}
	if fingerprint(t, outside) != before {
		t.Error("the undo wrote outside the workspace")
	}
}
