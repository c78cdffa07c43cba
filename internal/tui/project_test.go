package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/projectctx"
)

// projectDir is a workspace with files (path → content).
func projectDir(t *testing.T, files map[string]string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range files {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func withProject(ws string) func(*Options) {
	return func(o *Options) {
		o.Workspace = ws
		o.Project = projectctx.Load(projectctx.Options{Workspace: ws})
	}
}

func TestContextAndStatusListTheLoadedInstructions(t *testing.T) {
	t.Parallel()
	ws := projectDir(t, map[string]string{"AGENTS.md": "Use make. See @docs/guide.md.\n"})
	d := newDirect(t, 160, 50, withProject(ws))
	d.submit("/context")
	d.mustShow(filepath.Join(ws, "AGENTS.md")+" (workspace) — 30 B, whole", "mentions not expanded: @docs/guide.md",
		"User commands: 0", "Skills: 0")
	d.submit("/status")
	d.mustShow("Project instructions: AGENTS.md (1 file(s), 30 B in the system prompt of at most 64 KiB)")
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Use make; run go vet too.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.submit("/context reload")
	d.mustShow("Project instructions changed on disk (AGENTS.md edited); the new text applies from this turn.", "26 B, whole")
	d.submit("/context nope")
	d.mustShow("Error: Usage: /context [reload]")
}
