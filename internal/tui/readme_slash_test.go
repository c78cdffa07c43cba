package tui

import (
	"regexp"
	"slices"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/readme"
)

// README.md "Slash commands": every argument word the list shows for a command (a subcommand, a value, a flag) is one
// of the command's usage as /help gives it, so no listed form is one the command refuses.
func TestREADMESlashCommandUsagesAreTheTables(t *testing.T) {
	t.Parallel()
	s := readme.Section(t, "Slash commands")
	forms := regexp.MustCompile("`/([a-z][a-z-]*) ([^`]+)`").FindAllStringSubmatch(s, -1)
	if len(forms) < 20 {
		t.Fatalf("found %d commands with arguments in README.md's list; the parser is stale", len(forms))
	}
	for _, m := range forms {
		name, args := m[1], m[2]
		i := slices.IndexFunc(slashCommands, func(c slashCommand) bool {
			return c.Name == name || slices.Contains(c.Aliases, name)
		})
		if i < 0 {
			t.Errorf("README.md lists /%s, which the TUI does not have", name)
			continue
		}
		u := slashCommands[i].Usage
		have := usageWords(u)
		for _, w := range usageWords(args) {
			if !slices.Contains(have, w) {
				t.Errorf("README.md lists `/%s %s`; %q is not in the command's usage %q", name, args, w, u)
			}
		}
	}
}

// usageWords are a usage's literal words: subcommands, values and flags, not
// its <placeholders>.
func usageWords(usage string) []string {
	usage = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(usage, " ")
	return regexp.MustCompile(`-{0,2}[a-z][a-z0-9-]*`).FindAllString(usage, -1)
}
