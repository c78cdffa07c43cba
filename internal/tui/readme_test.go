package tui

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's slash-command list names only commands the TUI has (by name
// or alias), and lists every one of them (CONTRACT.md §14.7).
// README.md "Slash commands": the list names only commands the TUI has and every one it has
func TestREADMESlashCommandsAreTheCommandTable(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "\n## Slash commands\n")
	if i < 0 {
		t.Fatal("README.md has no Slash commands section")
	}
	s = s[i+1:]
	s = s[:strings.Index(s[3:], "\n## ")+3]
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`/([a-z][a-z-]*)[ `]").FindAllStringSubmatch(s, -1) {
		named[m[1]] = true
		if !BuiltinCommand(m[1]) {
			t.Errorf("README.md's slash commands name /%s, which the TUI does not have", m[1])
		}
	}
	if len(named) < 30 {
		t.Fatalf("found %d commands in README.md's list; the parser is stale", len(named))
	}
	for _, c := range slashCommands {
		if !named[c.Name] && !slices.ContainsFunc(c.Aliases, func(a string) bool { return named[a] }) {
			t.Errorf("/%s is a TUI command the README's slash-command list leaves out", c.Name)
		}
	}
}
