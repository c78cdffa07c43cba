package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A user command typed in the TUI is offered by the / menu as a user
// command, and its expansion with the typed arguments is what the model
// receives.
func TestE2EUserCommandExpandsWithArguments(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Greeted."))
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{".codewhale/commands/greet.md": "---\ndescription: Greet two people\n" +
		"argument-hint: <a> <b>\n---\nSay hello to $1 and then to $2.\n"})
	p := startTUIAt(t, srv, t.TempDir(), ws)
	p.keys("-l", "/gre")
	p.waitFor("/greet", "Greet two people · user command")
	p.keys("-l", "et Ada 'Grace Hopper'")
	p.keys("Enter")
	p.waitFor("▎ /greet Ada 'Grace Hopper'", "● Greeted.")
	if got := srv.Requests()[0].LastUserText(); !strings.HasPrefix(got, "Say hello to Ada and then to Grace Hopper.") {
		t.Errorf("the model received %q", got)
	}
}
