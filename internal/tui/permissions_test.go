package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/permissions"
)

// README.md "Permission rules": /permissions lists the rules in force with the order, /permissions explain <n> says what one does and /permissions remove <n> deletes one from your file.
// README.md "Slash commands": /permissions list|explain|remove the saved rules
func TestPermissionsCommand(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	global := filepath.Join(home, permissions.FileName)
	body := "[[rules]]\naction = \"allow\"\ntool = \"Bash\"\ncommand = \"go test\"\n\n" +
		"[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncommand = \"git push\"\n"
	if err := os.WriteFile(global, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := permissions.Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	d := newDirect(t, 140, 30, func(o *Options) { o.Permissions = s })
	d.submit("/permissions")
	d.mustShow(`1. allow tool=Bash command="go test"`, `2. deny tool=Bash command="git push"`, "Order: hard block > deny")
	d.submit("/permissions explain 2")
	d.mustShow("refuses matching calls in every posture", "commands starting with `git push`")
	d.submit("/permissions remove 1")
	d.mustShow(`Removed rule 1: allow tool=Bash command="go test"`)
	again, err := permissions.Load(global, ws)
	if err != nil || len(again.Rules()) != 1 || again.Rules()[0].Action != "deny" {
		t.Fatalf("file after remove: %v %v", again.Rules(), err)
	}
	d.submit("/permissions remove 9")
	d.mustShow("Usage: /permissions remove <n>, with n from 1 to 1")
}
