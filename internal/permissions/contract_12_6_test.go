package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func input(kv ...any) json.RawMessage {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

// CONTRACT.md §12.6: among the rules a matching deny beats an ask, which
// beats an allow, whatever the file order and whichever file holds them; a
// project's permissions.toml can only tighten — its allow rules are not in
// force, and the set says which were dropped and why.
// README.md "Permission rules": a deny beats an allow whatever the order or file, and the project's permissions.toml can only tighten (its allow rules are dropped and the set says so).
func TestContract12_6RulePrecedenceAndProjectTightens(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	global := filepath.Join(home, FileName)
	write(t, global, "[[rules]]\naction = \"allow\"\ntool = \"Bash\"\ncommand = \"make\"\n\n"+
		"[[rules]]\naction = \"allow\"\ntool = \"File\"\n")
	write(t, filepath.Join(ws, ".codewhale", FileName), "[[rules]]\naction = \"allow\"\ntool = \"*\"\n\n"+
		"[[rules]]\naction = \"ask\"\ntool = \"Bash\"\ncommand = \"make deploy\"\n\n"+
		"[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncommand = \"make deploy\"\npattern = \"* --prod\"\n")
	s, err := Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool string
		in   json.RawMessage
		want Decision
		from string // the deciding rule's file
	}{
		{"Bash", bash("make lint"), Allow, global},
		{"Bash", bash("make deploy"), Ask, ws},
		{"Bash", bash("make deploy --prod"), Deny, ws},
		{"Bash", bash("make lint && make deploy --prod"), Deny, ws}, // deny applies when any part matches
		{"Git", input("action", "push"), None, ""},                  // the project's allow-all is not in force
		{"File", input("action", "write", "path", "x"), Allow, global},
	} {
		d, r := s.Decide(tt.tool, tt.in)
		if d != tt.want || (r == nil) != (tt.from == "") || r != nil && !strings.HasPrefix(r.Source(), tt.from) {
			t.Errorf("Decide(%s, %s) = %v by %+v, want %v from %s", tt.tool, tt.in, d, r, tt.want, tt.from)
		}
	}
	ig := s.Ignored()
	if len(ig) != 1 || !strings.Contains(ig[0], filepath.Join(ws, ".codewhale", FileName)+" rule 1") ||
		!strings.Contains(ig[0], "a project file can only tighten") {
		t.Errorf("Ignored() = %q; want the project's allow rule named, with why", ig)
	}
	for _, r := range s.Rules() {
		if r.Action == "allow" && strings.Contains(r.Source(), ws) {
			t.Errorf("a project allow rule is in force: %s", r.Source())
		}
	}
}

// CONTRACT.md §12.6: "Always allow this" saves an exact allow rule — the
// call's whole command, or the one file it names — that allows that call
// and nothing more, also when the model chose a path that reads as a glob
// or starts with `~`; a call that names neither a command nor one file
// gets no rule, since one of only its tool and action would allow every
// call of that action whatever its other arguments.
// README.md "Permission rules": "Always allow this" saves an exact allow rule for that one call (its whole command, or its path).
func TestContract12_6SavedRuleAllowsThatCallOnly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	home, err := os.UserHomeDir()
	if err != nil {
		home = t.TempDir()
	}
	for _, tt := range []struct {
		name   string
		tool   string
		call   json.RawMessage
		others []json.RawMessage // calls the saved rule must not allow
	}{
		{"command", "Bash", bash("make lint"), []json.RawMessage{bash("make lint clean"), bash("make lint; rm -rf x"),
			bash("make")}},
		{"star", "File", input("action", "write", "path", "docs/*.md"), []json.RawMessage{
			input("action", "write", "path", "docs/README.md"), input("action", "write", "path", "docs/x.md")}},
		{"globstar", "File", input("action", "write", "path", "**"), []json.RawMessage{
			input("action", "write", "path", "src/main.go"), input("action", "write", "path", ".git/config")}},
		{"class and braces", "File", input("action", "write", "path", "a[bc]{d,e}?"), []json.RawMessage{
			input("action", "write", "path", "abd"), input("action", "write", "path", "ace1")}},
		{"tilde", "File", input("action", "write", "path", "~/x"), []json.RawMessage{
			input("action", "write", "path", filepath.Join(home, "x"))}},
		{"absolute outside", "File", input("action", "write", "path", filepath.Join(home, "notes.md")), []json.RawMessage{
			input("action", "write", "path", "notes.md")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			global := filepath.Join(t.TempDir(), FileName)
			s, err := Load(global, ws)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := RuleFor(tt.tool, tt.call, ws)
			if !ok {
				t.Fatalf("no rule for %s", tt.call)
			}
			if _, err := s.SaveAllow(r); err != nil {
				t.Fatal(err)
			}
			again, err := Load(global, ws) // as the next session reads it
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := again.Decide(tt.tool, tt.call); d != Allow {
				t.Errorf("the saved rule %s does not allow its own call: %v", r, d)
			}
			for _, o := range tt.others {
				if d, _ := again.Decide(tt.tool, o); d != None {
					t.Errorf("the saved rule %s also decides %s: %v", r, o, d)
				}
			}
		})
	}
	for _, in := range []json.RawMessage{
		input("action", "verify", "commands", []any{map[string]any{"name": "x", "program": "sh", "args": []string{"-c", "id"}}}),
		input("action", "create", "cwd", ".", "auto_approve", true, "prompt", "anything"),
		input("action", "start", "cwd", "sub", "write_authority", "full"),
		input("action", "fetch", "url", "https://example.com/"),
		input("path", "a", "file_path", "b"),
		bash("make lint | tee log"),
		bash("make $TARGET"),
	} {
		if r, ok := RuleFor("T", in, ws); ok {
			t.Errorf("RuleFor(%s) = %s; no exact rule pins this call", in, r)
		}
	}
}

// CONTRACT.md §12.6: a saved rule goes to the user's permissions.toml
// (0600, never the project's), reads there as an ordinary [[rules]] entry
// and prints as `<rule> (<file> rule <n>)` — the words the transcript's
// `Saved permission rule:` line shows.
// README.md "Permission rules": the saved rule goes to your file and prints as <rule> (<file> rule <n>), the words of the Saved permission rule: line.
func TestContract12_6WhatASavedRulePrints(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	global := filepath.Join(t.TempDir(), "home", FileName)
	write(t, filepath.Join(ws, ".codewhale", FileName), "[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncommand = \"rm\"\n")
	s, err := Load(global, ws)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range []struct {
		tool string
		in   json.RawMessage
		want string
	}{
		{"Bash", bash("make lint"), `allow tool=Bash tool_action="run" command="make lint" command_exact`},
		{"File", input("action", "write", "path", "docs/a.md"), `allow tool=File tool_action="write" path="docs/a.md"`},
	} {
		r, ok := RuleFor(tt.tool, tt.in, ws)
		if !ok {
			t.Fatalf("no rule for %s", tt.in)
		}
		saved, err := s.SaveAllow(r)
		if err != nil {
			t.Fatal(err)
		}
		if saved.String() != tt.want {
			t.Errorf("saved rule prints %q, want %q", saved.String(), tt.want)
		}
		if want := global + " rule " + string(rune('1'+i)); saved.Source() != want {
			t.Errorf("saved at %q, want %q", saved.Source(), want)
		}
	}
	info, err := os.Stat(global)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", global, info.Mode().Perm())
	}
	body, _ := os.ReadFile(global)
	for _, want := range []string{"[[rules]]", "action = 'allow'", "tool = 'Bash'", "command = 'make lint'",
		"command_exact = true", "path = 'docs/a.md'", "hard block > deny > protected path > ask >"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the rule file lacks %q:\n%s", want, body)
		}
	}
	project, _ := os.ReadFile(filepath.Join(ws, ".codewhale", FileName))
	if strings.Contains(string(project), "allow") {
		t.Errorf("a saved rule went to the project's file:\n%s", project)
	}
}

// CONTRACT.md §12.6: a malformed rule file is an error at start-up that
// names the file and the line, never a file whose rules are silently
// dropped.
// README.md "Permission rules": a malformed file is an error at start-up naming the file and line.
func TestContract12_6MalformedRulesNameFileAndLine(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	p := filepath.Join(ws, ".codewhale", FileName)
	write(t, p, "[[rules]]\naction = \"deny\"\ntool = \"Bash\"\ncommand = \n")
	_, err := Load(filepath.Join(t.TempDir(), FileName), ws)
	if err == nil || !strings.Contains(err.Error(), p+" line 4") {
		t.Fatalf("Load = %v; want an error naming %s line 4", err, p)
	}
}
