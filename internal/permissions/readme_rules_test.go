package permissions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// README.md "Permission rules": the section's example file loads as written (every key it shows is a rule key), its
// File rule allows writes under docs/** only in the workspace it names, and commands are parsed, never matched as
// substrings: `git push` matches `git push origin main`, `sudo git push` and `sh -c 'git push'`, not `echo git push`.
func TestREADMEPermissionRulesExample(t *testing.T) {
	t.Parallel()
	section := readme.Section(t, "Permission rules")
	_, block, ok := strings.Cut(section, "```toml\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 || !strings.Contains(block, "[[rules]]") {
		t.Fatal("the Permission rules section has no toml example")
	}
	home, ws := t.TempDir(), t.TempDir()
	global := filepath.Join(home, FileName)
	write(t, global, strings.ReplaceAll(block, `"/home/me/src/app"`, `"`+filepath.ToSlash(ws)+`"`))
	s, err := Load(global, ws)
	if err != nil {
		t.Fatalf("the README's example does not load: %v", err)
	}
	if got, _ := s.Decide("File", input("action", "write", "path", "docs/guide.md")); got != Allow {
		t.Errorf("write docs/guide.md = %v, want allow", got)
	}
	if got, _ := s.Decide("File", input("action", "write", "path", "src/a.go")); got != None {
		t.Errorf("write src/a.go = %v, want none", got)
	}
	other, err := Load(global, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Decide("File", input("action", "write", "path", "docs/guide.md")); got != None {
		t.Errorf("in another workspace, write docs/guide.md = %v, want none (the rule names its workspace)", got)
	}

	write(t, global, "[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncommand = \"git push\"\n")
	if s, err = Load(global, ws); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{"git push origin main": Deny, "sudo git push": Deny,
		"sh -c 'git push'": Deny, "echo git push": None} {
		if got, _ := s.Decide("Bash", bash(cmd)); got != want {
			t.Errorf("%s = %v, want %v", cmd, got, want)
		}
	}
}
