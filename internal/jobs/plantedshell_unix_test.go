//go:build unix

package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A shell named by a bare name ($SHELL=bash, or Options.Shell) is looked up
// past the workspace's PATH directories: a ./bin/bash a File patch planted
// there would otherwise run every command the agent starts.
func TestPlantedShellIsNotTheShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("no sh on PATH")
	}
	ws := t.TempDir()
	bin := filepath.Join(ws, "bin")
	marker := filepath.Join(ws, "PWNED")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sh"), []byte("#!/bin/sh\ntouch "+marker+"\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, tt := range []struct{ name, shell, env string }{
		{"configured", "sh", ""},
		{"$SHELL", "", "sh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SHELL", tt.env)
			m, err := NewManager(Options{Shell: tt.shell, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.Close)
			if got := m.Shell(); strings.HasPrefix(got, ws) {
				t.Errorf("Shell() = %s, the one planted in the workspace", got)
			}
			_, d := runIn(t, m, Spec{Command: "echo real", Dir: ws})
			if _, err := os.Stat(marker); err == nil || !strings.Contains(d.Stdout.Content, "real") {
				t.Errorf("the planted shell ran (stdout %q)", d.Stdout.Content)
			}
		})
	}
	// Without the workspace the same lookup finds the planted one: the test
	// shows the skip, not an accident of PATH.
	if got := resolveShell("sh", ""); filepath.Dir(got) != bin {
		t.Errorf("resolveShell without a workspace = %s, want the planted %s/sh", got, bin)
	}
}
