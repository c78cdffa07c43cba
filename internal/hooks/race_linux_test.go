package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/swaprig"
)

// The workspace's hooks.toml swapped for a link to a file outside: no load
// ever reads the outside file (its hooks, its bytes in a parse error, its
// hash for trust), and some loads read the inside one.
func TestRaceProjectHooksNeverReadASwappedInFile(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	inside := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"echo inside\"\n"
	if err := os.WriteFile(ProjectFile(ws), []byte(inside), 0o644); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(outside, "credentials")
	if err := os.WriteFile(creds, []byte("[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"echo CANARY\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := swaprig.Start(t, ProjectFile(ws), creds)
	ok := 0
	for i := 0; r.More(i, 300, ok); i++ {
		p, err := loadProject(home, ws)
		if err != nil {
			if strings.Contains(err.Error(), "CANARY") {
				t.Fatalf("the outside file reached an error: %v", err)
			}
			continue
		}
		for _, h := range p.hooks {
			if strings.Contains(h.Command, "CANARY") {
				t.Fatalf("load %d read the outside hooks.toml", i)
			}
			ok++
		}
	}
	r.Stop()
	if ok == 0 {
		t.Fatal("no load read the inside file: the rig proves nothing")
	}
	t.Logf("%d loads read the inside file, %d swaps, 0 outside", ok, r.Swaps())
}
