package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/checkpoint"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/treestate"
	"github.com/codewhale/codewhale/internal/tools/file"
	"github.com/codewhale/codewhale/internal/toolset"
)

func TestMutationPaths(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "real"), 0o755)
	os.Symlink("real", filepath.Join(ws, "linked"))
	os.WriteFile(filepath.Join(ws, "real", "f.go"), nil, 0o644)
	os.Symlink("real/f.go", filepath.Join(ws, "alias.go"))
	mut := func(paths ...string) map[string]any {
		m := file.Mutation{}
		for _, p := range paths {
			m.Files = append(m.Files, file.MutationFile{Path: p, Outcome: "updated"})
		}
		return map[string]any{"event": file.MutationEvent, "mutation": m}
	}
	for _, c := range []struct {
		name string
		meta map[string]any
		want string // "" with ok false
	}{
		{"relative", mut("a.go", "sub/b.go"), "a.go,sub/b.go"},
		{"absolute inside", mut(filepath.Join(ws, "c.go")), "c.go"},
		{"not clean", mut("./x/../c.go"), "c.go"},
		{"the workspace itself", mut("."), ""},
		{"outside", mut("a.go", "/etc/passwd"), ""},
		{"dot-dot", mut("../x"), ""},
		{"under a symlinked dir", mut("linked/f.go"), ""},
		{"a symlink itself", mut("alias.go"), ""},
		{"not a mutation", map[string]any{"event": "shell", "exit_code": 0}, ""},
		{"a map that looks like one", map[string]any{"event": file.MutationEvent, "mutation": map[string]any{"files": []any{}}}, ""},
		{"nil", nil, ""},
	} {
		paths, ok := mutationPaths(c.meta, ws)
		if got := strings.Join(paths, ","); ok != (c.want != "") || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, ok, c.want)
		}
	}
}

// A turn of File calls through the real engine and File tool is recorded
// from the files each call reports: a file changed outside codewhale
// while the turn ran is not taken for the agent's work, and /undo takes
// back exactly the agent's.
// README.md "Undo": after a File call only the files it says it wrote are looked at again
func TestFileCallsAreRecordedByTheirOwnPaths(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a0\n"), 0o644)
	h := newTurnHarness(t, ws, fileWrite("w1", "a.txt", "a1\n"))
	h.srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		switch len(h.srv.Requests()) {
		case 2: // after the first write: someone edits another file meanwhile
			os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("by the user\n"), 0o644)
			return fileWrite("w2", "new/b.txt", "b\n")
		}
		return fakemodel.Text("Done.")
	})
	turn := h.run("write two files")
	var got []string
	for _, f := range turn.Files() {
		got = append(got, f.Kind+" "+f.Path)
	}
	if strings.Join(got, ", ") != "modified a.txt, added new/b.txt" {
		t.Fatalf("recorded %v", got)
	}
	h.undo()
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(ws, p)); return string(b) }
	if read("a.txt") != "a0\n" || read("new/b.txt") != "" || read("theirs.txt") != "by the user\n" {
		t.Fatalf("after undo: a=%q b=%q theirs=%q", read("a.txt"), read("new/b.txt"), read("theirs.txt"))
	}
}

// The turn's base state is taken while the model is asked, and the first
// write looks again at the file it names: an edit the user made between
// the turns and one made while the model was thinking are both what /undo
// puts back, not the state the previous turn left.
// README.md "Undo": an edit you make while the model thinks is kept by the turn's record
func TestTheFirstWriteKeepsTheUsersEditsOfTheTurnsStart(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a0\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b0\n"), 0o644)
	h := newTurnHarness(t, ws, fileWrite("w1", "a.txt", "a1\n"), fakemodel.Text("Done."))
	h.run("first turn")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a by the user between turns\n"), 0o644)
	h.srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if len(h.srv.Requests()) == 3 { // the second turn's first request: the user edits b meanwhile
			os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b by the user meanwhile\n"), 0o644)
			return fakemodel.Tools(fakemodel.Call{ID: "w2", Name: "File", Args: `{"action":"patch","replace":[` +
				`{"path":"a.txt","content":"a2\n"},{"path":"b.txt","content":"b2\n"}]}`})
		}
		return fakemodel.Text("Done.")
	})
	h.run("second turn")
	h.undo()
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(ws, p)); return string(b) }
	if read("a.txt") != "a by the user between turns\n" || read("b.txt") != "b by the user meanwhile\n" {
		t.Fatalf("after undo: a=%q b=%q", read("a.txt"), read("b.txt"))
	}
}

func fileWrite(id, path, body string) fakemodel.Reply {
	args, _ := json.Marshal(map[string]any{"action": "write", "path": path, "content": body})
	return fakemodel.Tools(fakemodel.Call{ID: id, Name: "File", Args: string(args)})
}

func bash(id, command string) fakemodel.Reply {
	args, _ := json.Marshal(map[string]any{"command": command})
	return fakemodel.Tools(fakemodel.Call{ID: id, Name: "Bash", Args: string(args)})
}

// turnHarness drives the real engine, tools and checkpoint recorder over
// ws against a scripted model.
type turnHarness struct {
	t      *testing.T
	e      *engine.Engine
	rec    *checkpoint.Recorder
	srv    *fakemodel.Server
	recErr error
}

func newTurnHarness(t *testing.T, ws string, script ...fakemodel.Reply) *turnHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
	store, err := checkpoint.Open(t.TempDir(), ws, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &turnHarness{t: t, rec: checkpoint.NewRecorder(store), srv: fakemodel.New(t, script...)}
	h.rec.OnError = func(err error) { h.recErr = err }
	jm, err := jobs.NewManager(jobs.Options{Shell: "/bin/sh", KillGrace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc := toolset.NewServices(toolset.Options{Workspace: ws})
	svc.Jobs = jm
	h.e = engine.New(engine.Options{Workspace: ws, Model: "deepseek-v4-pro", AutoApprove: true, AllowShell: true,
		Tools: svc.Toolset, Checkpoints: checkpointer{r: h.rec},
		NewClient: func(model string) (*provider.Client, error) {
			return provider.New(provider.Config{BaseURL: h.srv.URL, Model: model})
		}})
	ctx, cancel := context.WithCancel(context.Background())
	go h.e.Run(ctx)
	t.Cleanup(func() {
		cancel()
		for range h.e.Events() {
		}
	})
	return h
}

// run sends prompt, waits for the turn to end and returns its recorded
// turn; every tool call must have succeeded.
func (h *turnHarness) run(prompt string) checkpoint.Turn {
	h.t.Helper()
	h.e.Submit(engine.SendMessage{Content: prompt})
	for done := false; !done; {
		select {
		case ev := <-h.e.Events():
			if c, ok := ev.(engine.ToolCallComplete); ok && !c.Result.Success {
				h.t.Fatalf("%s failed: %s", c.Name, c.Result.Content)
			}
			_, done = ev.(engine.TurnComplete)
		case <-time.After(30 * time.Second):
			h.t.Fatal("the turn did not complete")
		}
	}
	turns, err := h.rec.Turns(h.e.Snapshot().ID)
	if err != nil || h.recErr != nil || len(turns) == 0 {
		h.t.Fatalf("turns %+v, %v, recording error %v", turns, err, h.recErr)
	}
	return turns[len(turns)-1]
}

func (h *turnHarness) undo() checkpoint.Undone {
	h.t.Helper()
	u, err := h.rec.Undo(context.Background(), h.e.Snapshot().ID, 1, false)
	if err != nil || !u.Applied {
		h.t.Fatalf("undo: %v %+v", err, u)
	}
	return u
}

// A turn that mixes File calls with a shell command: the File calls are
// recorded by their own paths, the command by a look at the whole tree
// (it names nothing), so /undo takes back everything the command changed
// too — an edit with sed, chmod, a deletion, a renamed directory, a binary
// file, a new directory — byte for byte, mode bits included. The next
// turn's first checkpoint looks at the whole tree as well: a file the user
// edited between the turns and the agent then rewrote goes back to the
// user's version, not to the agent's earlier one.
// README.md "Undo": after a shell command the whole tree is looked at
func TestAShellCommandInATurnIsRecordedByAFullLook(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for name, body := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "run.sh": "echo run\n",
		"doomed.txt": "bye\n", "pkg/x.go": "package pkg\n", "pkg/sub/y.go": "package sub\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644)
	}
	h := newTurnHarness(t, ws,
		fileWrite("f1", "a.txt", "a1\n"),
		bash("b1", `sed -i 's/b0/b1/' b.txt && chmod +x run.sh && rm doomed.txt && mv pkg lib && `+
			`printf '\000\001\377' > logo.bin && mkdir -p made && echo n > made/n.txt`),
		fileWrite("f2", "c.txt", "c\n"),
		fakemodel.Text("Done."),
		fileWrite("f3", "a.txt", "a by the agent, again\n"),
		fakemodel.Text("Done."))
	before := treestate.Fingerprint(t, ws)
	turn := h.run("change things")
	if len(turn.Calls) != 3 || turn.Calls[1].Tool != "Bash" || len(turn.Calls[1].Changes) != 9 {
		t.Fatalf("recorded %+v", turn.Calls)
	}
	afterTurn1 := treestate.Fingerprint(t, ws)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a by the user\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "theirs.txt"), []byte("the user's own\n"), 0o644)
	h.run("rewrite a.txt")
	h.undo()
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "a by the user\n" {
		t.Fatalf("undoing the second turn: a.txt = %q", b)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a1\n"), 0o644)
	os.Remove(filepath.Join(ws, "theirs.txt"))
	if got := treestate.Fingerprint(t, ws); got != afterTurn1 {
		t.Fatalf("the tree after the first turn:\n%s\nwant\n%s", got, afterTurn1)
	}
	h.undo()
	if got := treestate.Fingerprint(t, ws); got != before {
		t.Fatalf("not restored byte for byte:\n got %s\nwant %s", got, before)
	}
}
