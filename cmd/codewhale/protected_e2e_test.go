package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// A File write into .git needs an explicit approval: exec --auto refuses it
// naming the path and why, Full Access (--yolo) lets it through.
func TestProtectedWriteUnderAutoAndFullAccess(t *testing.T) {
	t.Parallel()
	call := fakemodel.Call{ID: "w", Name: "File",
		Args: `{"action":"write","path":".git/config","content":"[core]\n\tfsmonitor = touch pwned\n"}`}
	for _, tt := range []struct {
		flag    string
		written bool
		want    string
	}{
		{"--auto", false, ".git/config writes git metadata"},
		{"--yolo", true, "Wrote "},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Tools(call), fakemodel.Text("done"))
			c := newCLI(t, srv)
			if err := os.MkdirAll(filepath.Join(c.ws, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(c.ws, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := c.run("exec", tt.flag, "configure git")
			if code != 0 {
				t.Fatalf("code %d: %s", code, errOut)
			}
			if got := toolMessages(srv.Requests()[1]); !strings.Contains(got, tt.want) {
				t.Errorf("tool result %q, want %q", got, tt.want)
			}
			b, _ := os.ReadFile(filepath.Join(c.ws, ".git", "config"))
			if strings.Contains(string(b), "pwned") != tt.written {
				t.Errorf("written=%v, want %v: %q", !tt.written, tt.written, b)
			}
		})
	}
}
