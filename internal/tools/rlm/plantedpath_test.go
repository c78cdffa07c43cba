package rlm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/plantedbin"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// A python3 the workspace put on PATH (.venv/bin, which a File patch can
// fill) is never the kernel: open and eval run without asking. Not
// parallel: it sets PATH.
func TestPlantedPython3IsNotTheKernel(t *testing.T) {
	needPython(t)
	e := &env{t: t, store: handles.NewStore(0), ws: t.TempDir()}
	ran := plantedbin.Plant(t, e.ws, "python3")
	e.tool = New(Options{ScratchRoot: t.TempDir(), Workspace: e.ws, Handles: e.store})
	t.Cleanup(e.tool.Close)
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.must(`{"action":"open","name":"n","file_path":"notes.txt"}`)
	out := e.must(`{"action":"eval","name":"n","code":"print(len(content))"}`)
	if got := ran(); len(got) > 0 {
		t.Fatalf("the planted %v ran", got)
	}
	if b, _ := json.Marshal(out); out["stdout"] != "3\n" {
		t.Fatalf("eval did not run the real python3: %s", b)
	}
}
