package tui

import (
	"regexp"
	"slices"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// The README's slash-command list names only commands the TUI has (by name
// or alias), and lists every one of them (CONTRACT.md §14.7).
// README.md "Slash commands": the list names only commands the TUI has and every one it has
func TestREADMESlashCommandsAreTheCommandTable(t *testing.T) {
	t.Parallel()
	s := readme.Section(t, "Slash commands")
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
