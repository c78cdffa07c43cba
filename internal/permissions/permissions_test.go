package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func bash(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"action": "run", "command": cmd})
	return b
}

// Rules match parsed commands, not substrings; deny beats ask beats allow
// whatever the file order; a project file can only tighten.
// README.md "Permission rules": commands are parsed, not substrings; an allow must cover every simple command and every path and no run-time word; command_exact; deny beats ask beats allow; the project's allow rules are ignored.
func TestDecidePrecedenceAndMatching(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	global := filepath.Join(home, FileName)
	write(t, global, `
[[rules]]
action = "allow"
tool = "Bash"
command = "git"

[[rules]]
action = "allow"
tool = "Bash"
command = "go test"

[[rules]]
action = "ask"
tool = "Bash"
command = "git push"

[[rules]]
action = "deny"
tool = "Bash"
pattern = "git push * --force*"

[[rules]]
action = "allow"
tool = "File"
tool_action = "write"
path = "docs/**"

[[rules]]
action = "deny"
tool = "File"
path = "secrets/**"
`)
	write(t, filepath.Join(ws, ".codewhale", FileName), `
[[rules]]
action = "allow"
tool = "*"

[[rules]]
action = "deny"
tool = "Bash"
command = "go test"
command_exact = true
`)
	s, err := Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	file := func(action, p string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"action": action, "path": p})
		return b
	}
	for _, tt := range []struct {
		tool string
		in   json.RawMessage
		want Decision
	}{
		{"Bash", bash("git status"), Allow},
		{"Bash", bash("git status && git log"), Allow},
		{"Bash", bash("git status && rm -rf x"), None},   // allow must cover every command
		{"Bash", bash("echo git push"), None},            // not a substring match
		{"Bash", bash("git push origin main"), Ask},      // ask beats the earlier allow
		{"Bash", bash("sudo git push origin main"), Ask}, // seen through the wrapper
		{"Bash", bash("sh -c 'git push'"), Ask},
		{"Bash", bash("git push origin main --force"), Deny},
		{"Bash", bash("git $SUB"), None},       // an allow needs the whole command visible
		{"Bash", bash("go test"), Deny},        // the project tightens
		{"Bash", bash("go test ./..."), Allow}, // command_exact: only "go test" itself
		{"Bash", bash("ls"), None},             // the project's allow-all is ignored
		{"File", file("write", "docs/a/b.md"), Allow},
		{"File", file("write", "src/a.go"), None},
		{"File", file("read", "docs/a.md"), None},
		{"File", file("read", "secrets/k"), Deny},
	} {
		got, r := s.Decide(tt.tool, tt.in)
		if got != tt.want {
			desc := ""
			if r != nil {
				desc = r.Source() + " " + r.String()
			}
			t.Errorf("Decide(%s, %s) = %v (%s), want %v", tt.tool, tt.in, got, desc, tt.want)
		}
	}
	if ig := s.Ignored(); len(ig) != 1 || !strings.Contains(ig[0], "can only tighten") {
		t.Errorf("ignored %v", ig)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"[[rules]]\naction = \"maybe\"\ntool = \"Bash\"\n":                `rule 1: action "maybe" must be allow, ask or deny`,
		"[[rules]]\naction = \"deny\"\n":                                  "needs at least one of tool",
		"[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncomand = \"x\"\n": "permissions.toml",
		"[[rules]\n": "line 1",
	} {
		p := filepath.Join(t.TempDir(), FileName)
		write(t, p, body)
		if _, err := Load(p, ""); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err %v, want %q", body, err, want)
		}
	}
}

// "Always allow this" saves an exact rule that then decides the same call
// (and not a longer one); Remove takes it out of the file again.
// README.md "Permission rules": /permissions remove <n> deletes a rule from your file.
func TestSaveAndRemove(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	global := filepath.Join(home, FileName)
	s, err := Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := RuleFor("Bash", bash("make lint"), ws)
	if !ok || r.Command != "make lint" || !r.CommandExact {
		t.Fatalf("rule %+v %v", r, ok)
	}
	if _, ok := RuleFor("Bash", bash("make lint | tee x"), ws); ok {
		t.Error("a pipeline has no exact rule")
	}
	saved, err := s.SaveAllow(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := global + " rule 1"; saved.Source() != want {
		t.Errorf("saved at %q, want %q", saved.Source(), want)
	}
	again, err := Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := again.Decide("Bash", bash("make lint")); d != Allow {
		t.Errorf("saved rule does not allow: %v", d)
	}
	if d, _ := again.Decide("Bash", bash("make lint clean")); d != None {
		t.Errorf("exact rule allows more: %v", d)
	}
	if _, err := again.Remove(1); err != nil {
		t.Fatal(err)
	}
	final, _ := Load(global, ws)
	if len(final.Rules()) != 0 {
		t.Errorf("rules left %v", final.Rules())
	}
	if _, err := final.Remove(1); err == nil {
		t.Error("removing a missing rule must fail")
	}
}

// The workspace's rule file is read only where it resolves inside the
// workspace: one that links out is an error naming where it points.
func TestProjectRulesLinkedOutsideAreRefused(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, FileName), "[[rules]]\naction = \"deny\"\ntool = \"Bash\"\n")
	if err := os.MkdirAll(filepath.Join(ws, ".codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, FileName), filepath.Join(ws, ".codewhale", FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), FileName), ws); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("linked-out project rules: %v", err)
	}
}
