package binpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// README.md "Modes and permissions": the programs codewhale runs by itself are looked up on PATH past its relative entries and those inside the workspace.
func TestLookPathSkipsTheWorkspaceAndRelativeEntries(t *testing.T) {
	ws, sys := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(ws, ".venv", "bin", "tool"), filepath.Join(ws, "bin", "tool"), filepath.Join(sys, "tool")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(ws)
	for _, tt := range []struct{ path, want string }{
		{strings.Join([]string{filepath.Join(ws, ".venv", "bin"), sys}, string(os.PathListSeparator)), filepath.Join(sys, "tool")},
		{strings.Join([]string{"bin", "", ".", sys}, string(os.PathListSeparator)), filepath.Join(sys, "tool")},
		{filepath.Join(ws, "bin"), ""},
	} {
		t.Setenv("PATH", tt.path)
		got, err := LookPath("tool", ws)
		if tt.want == "" {
			if err == nil {
				t.Errorf("PATH=%s: found %s, want none", tt.path, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("PATH=%s: LookPath = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	t.Setenv("PATH", filepath.Join(ws, "bin"))
	if got, err := LookPath("tool", ""); err != nil || got != filepath.Join(ws, "bin", "tool") {
		t.Errorf("without a workspace: %q, %v", got, err)
	}
}

func TestSearchPathIsWhatLookPathSearches(t *testing.T) {
	ws, sys := t.TempDir(), t.TempDir()
	sep := string(os.PathListSeparator)
	t.Setenv("PATH", strings.Join([]string{filepath.Join(ws, ".venv", "bin"), "bin", "", sys, "/usr/bin"}, sep))
	if got, want := SearchPath(ws), sys+sep+"/usr/bin"; got != want {
		t.Errorf("SearchPath = %q, want %q", got, want)
	}
}
