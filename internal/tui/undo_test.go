package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tui/views"
)

func prompt(s string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Origin: provider.OriginUser,
		Content: []provider.Block{provider.TextBlock(s), provider.TextBlock("<turn_meta>\nx\n</turn_meta>")}}
}

func answer(s string) provider.Message {
	return provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(s)}}
}

// undoFixture is a model over a real checkpoint recorder in a temp
// workspace, with turns recorded the way the engine records them.
type undoFixture struct {
	*direct
	ws   string
	rec  *checkpoint.Recorder
	hist []provider.Message
}

func newUndoFixture(t *testing.T) *undoFixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "checkpoints need git")
	}
	ws := t.TempDir()
	store, err := checkpoint.Open(t.TempDir(), ws, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := checkpoint.NewRecorder(store)
	d := newDirect(t, 110, 40, func(o *Options) { o.Checkpoints, o.Workspace, o.Home = rec, ws, t.TempDir() })
	return &undoFixture{direct: d, ws: ws, rec: rec}
}

// turn records one turn that writes files, and announces its messages.
func (f *undoFixture) turn(id, text string, files map[string]string) {
	f.t.Helper()
	ctx := context.Background()
	f.rec.Begin(ctx, "session-1", id, text, len(f.hist))
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(f.ws, name), []byte(body), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	f.rec.Call(ctx, id, "c-"+id, "File")
	f.rec.Finish(id)
	f.hist = append(f.hist, prompt(text), answer("did "+text))
	f.events(engine.SessionUpdated{SessionID: "session-1", Messages: append([]provider.Message(nil), f.hist...)})
}

func (f *undoFixture) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(f.ws, name))
	return string(b)
}

// run executes a command and feeds every message it produces back, the
// way Bubble Tea would (batches included).
func (f *undoFixture) run(cmd tea.Cmd) {
	f.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			f.run(c)
		}
		return
	}
	if msg != nil {
		_, next := f.m.Update(msg)
		f.run(next)
	}
}

// /undo asks; answering "files and conversation" reverts the files and
// asks the engine to cut the conversation back to before the turn, and the
// cut history is redrawn.
// README.md "Undo": /undo shows what it would put back and asks: drop the turn, keep the conversation, or cancel
func TestUndoAsksAndDropsTheTurnFromTheConversation(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("one\n"), 0o644)
	f.turn("t1", "first change", map[string]string{"a.txt": "two\n"})
	f.turn("t2", "second change", map[string]string{"a.txt": "three\n", "b.txt": "new\n"})

	f.run(f.submit("/undo"))
	if _, ok := f.m.stack.Top().(*views.Question); !ok {
		t.Fatalf("no question:\n%s", f.screen())
	}
	f.mustShow("Undo the last turn", `Turn "second change"`, "reverted a.txt", "removed b.txt",
		"1. Undo the files and drop the turn from the conversation", "2. Undo the files, keep the conversation", "3. Cancel")
	f.run(f.key("enter"))
	if f.read("a.txt") != "two\n" || f.read("b.txt") != "" {
		t.Fatalf("files after /undo: a=%q b=%q", f.read("a.txt"), f.read("b.txt"))
	}
	op, ok := f.eng.lastOp().(engine.RewindHistory)
	if !ok || op.Keep != 2 || op.Prompt != "second change" {
		t.Fatalf("op = %#v", f.eng.lastOp())
	}
	f.events(engine.HistoryRewound{SessionID: "session-1", Kept: 2, Dropped: 2, Messages: f.hist[:2]})
	f.mustShow("▎ first change", "did first change", "Undid the file changes of the last turn", "2 file(s)",
		"Dropped 2 message(s) from the conversation")
	f.mustNotShow("▎ second change", "did second change")

	// Again, keeping the conversation this time.
	f.run(f.submit("/undo"))
	f.mustShow(`Turn "first change"`)
	f.run(f.key("2"))
	if f.read("a.txt") != "one\n" {
		t.Fatalf("a.txt = %q after the second /undo", f.read("a.txt"))
	}
	if _, ok := f.eng.lastOp().(engine.RewindHistory); !ok || len(f.eng.Ops()) != 1 {
		t.Fatalf("keeping the conversation still cut it: %#v", f.eng.Ops())
	}
	f.mustShow("The conversation still includes the turn")
}

// A file changed outside codewhale is shown; the default answer is
// Cancel, which changes nothing; choosing to overwrite does.
// README.md "Undo": a file changed outside codewhale is listed; the default answer is then Cancel
func TestUndoShowsAnOutsideChangeAndAsks(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	f.turn("t1", "edit it", map[string]string{"a.txt": "agent\n"})
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("mine\n"), 0o644)
	f.run(f.submit("/undo"))
	f.mustShow("1 file(s) changed outside codewhale since", "a.txt — changed outside codewhale",
		"Undo the files (overwriting 1 changed outside codewhale) and drop")
	if q := f.m.stack.Top().(*views.Question); q.Selected() != "" {
		t.Fatalf("default answer %q, want Cancel", q.Selected())
	}
	f.run(f.key("enter"))
	f.mustShow("Nothing was changed.")
	if f.read("a.txt") != "mine\n" {
		t.Fatal("the outside change was overwritten")
	}
	f.run(f.submit("/undo"))
	f.run(f.key("2"))
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt should be gone (the turn created it): %v", err)
	}
	f.mustShow("Overwrote 1 file(s) changed outside codewhale, as you chose.")
}

// /restore lists the turns with their files; restoring to before the
// first takes both back, and the next /undo takes the restore back.
// README.md "Undo": /restore lists the turns with their files; a restore is a turn /undo takes back
func TestRestorePickerAndItsUndo(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	f.turn("t1", "add notes", map[string]string{"notes.md": "v1\n"})
	f.turn("t2", "grow notes", map[string]string{"notes.md": "v2\n", "todo.md": "x\n"})
	f.run(f.submit("/restore"))
	f.mustShow("Restore the workspace to before a turn", "grow notes", "2 file(s): M notes.md, A todo.md", "add notes",
		"1 file(s): A notes.md")
	f.key("down")
	f.run(f.key("enter"))
	f.mustShow("Restore the workspace to before this turn", `Turn "grow notes"`, `Turn "add notes"`,
		"1. Restore the files and drop the turn from the conversation")
	f.run(f.key("1"))
	if f.read("notes.md") != "" || f.read("todo.md") != "" {
		t.Fatalf("after the restore: notes=%q todo=%q", f.read("notes.md"), f.read("todo.md"))
	}
	if op, ok := f.eng.lastOp().(engine.RewindHistory); !ok || op.Keep != 0 || op.Prompt != "add notes" {
		t.Fatalf("op = %#v", f.eng.lastOp())
	}
	f.events(engine.HistoryRewound{SessionID: "session-1", Kept: 0, Dropped: 4})
	f.run(f.submit("/undo"))
	f.mustShow("taking a restore back changes only files", "1. Undo the files")
	f.run(f.key("enter"))
	if f.read("notes.md") != "v2\n" || f.read("todo.md") != "x\n" {
		t.Fatalf("after undoing the restore: notes=%q todo=%q", f.read("notes.md"), f.read("todo.md"))
	}
}

// /retry asks whether to undo the turn's files, then cuts the conversation
// back and, once the engine confirms, sends the message again.
// README.md "Undo": /retry asks whether to undo its turn's files first, then sends the last message again
func TestRetryUndoesTheFilesAndResends(t *testing.T) {
	t.Parallel()
	f := newUndoFixture(t)
	f.turn("t1", "write it", map[string]string{"out.txt": "bad\n"})
	f.run(f.submit("/retry"))
	f.mustShow("Retry the last message", "removed out.txt", "1. Undo the files, then retry", "2. Keep the files as they are and retry")
	f.run(f.key("1"))
	if f.read("out.txt") != "" {
		t.Fatal("the file change was not undone")
	}
	if op, ok := f.eng.lastOp().(engine.RewindHistory); !ok || op.Keep != 0 || op.Prompt != "write it" {
		t.Fatalf("op = %#v", f.eng.lastOp())
	}
	f.events(engine.HistoryRewound{SessionID: "session-1", Kept: 0, Dropped: 2})
	if op, ok := f.eng.lastOp().(engine.SendMessage); !ok || op.Content != "write it" {
		t.Fatalf("op = %#v", f.eng.lastOp())
	}
	f.mustShow("▎ write it")
}

// Esc twice on an empty composer lists the earlier messages; picking one
// forks the conversation from before it and puts it in the composer.
// README.md "Undo": /edit and Esc Esc put a picked message back in the composer in a fork from before it
func TestEscEscEditsAnEarlierMessageInAFork(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	hist := []provider.Message{prompt("plan the parser"), answer("ok"), prompt("write it"), answer("done")}
	d.events(engine.SessionUpdated{SessionID: "session-1", Messages: hist})
	d.key("esc")
	d.mustShow("Esc again to edit an earlier message")
	d.key("esc")
	d.mustShow("Edit an earlier message", "write it", "1 message(s) after it", "plan the parser")
	d.key("down", "enter")
	op, ok := d.eng.lastOp().(engine.ForkSession)
	if !ok || op.Keep != 0 || op.Prompt != "plan the parser" || op.ID != "session-2" {
		t.Fatalf("op = %#v", d.eng.lastOp())
	}
	d.events(engine.SessionForked{From: "session-1", SessionID: "session-2", Kept: 0})
	if got := d.m.comp.Value(); got != "plan the parser" {
		t.Fatalf("composer = %q", got)
	}
	d.mustShow("Forked session session- from session-", "Edit the message and press Enter")
	d.mustNotShow("▎ write it")
	if d.m.session != "session-2" {
		t.Fatalf("session = %q", d.m.session)
	}
}

// A refused cut says why, and /retry does not send anything.
func TestRefusedCutIsReported(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 100, 30)
	d.events(engine.SessionUpdated{SessionID: "session-1", Messages: []provider.Message{prompt("hello"), answer("hi")}})
	d.submit("/retry")
	if _, ok := d.eng.lastOp().(engine.RewindHistory); !ok {
		t.Fatalf("op = %#v", d.eng.lastOp())
	}
	d.events(engine.HistoryRewound{SessionID: "session-1", Refused: "the cut was refused for a test"})
	d.mustShow("The conversation was not cut back: the cut was refused for a test.")
	if _, sent := d.eng.lastOp().(engine.SendMessage); sent {
		t.Fatal("retry sent after a refused cut")
	}
}
