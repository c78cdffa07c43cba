package main

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/readme"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	longFlag  = regexp.MustCompile(`(?:^|[\s\[(|/])--([a-z][a-z0-9-]+)`)
	shortLong = regexp.MustCompile(`(?:^|[\s\[(])-([a-zA-Z])/--([a-z][a-z0-9-]+)`)
)

// flagsOf is every flag a command accepts, its own, its parents'
// persistent ones and cobra's help.
func flagsOf(cmd *cobra.Command) map[string]*pflag.Flag {
	out := map[string]*pflag.Flag{}
	add := func(f *pflag.Flag) { out[f.Name] = f }
	cmd.InitDefaultHelpFlag()
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return out
}

// The README's command table names only commands, subcommands and flags the
// command tree has, and a -x/--long pair only where x is --long's shorthand:
// a renamed or removed flag fails here until the README follows.
// README.md "Command line": every command, subcommand and flag the section names is in the command tree.
func TestREADMECommandLineIsTheCommandTree(t *testing.T) {
	t.Parallel()
	root := newRootCmd(IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, &globals{})
	all := map[string][]*pflag.Flag{} // a name can be several commands' flag
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for n, f := range flagsOf(c) {
			all[n] = append(all[n], f)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	section := readme.Section(t, "Command line")
	checked := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		var cmd *cobra.Command
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			words := strings.Fields(strings.ReplaceAll(m[1], "\x00", " | "))
			switch {
			case len(words) > 1 && words[0] == "codewhale" && regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(words[1]):
				cmd = subcommand(t, root, words[1])
				words = words[2:]
			case cmd != nil && len(words) > 0 && cmd.Parent() == root:
				// `export ID …` after `codewhale sessions rename …`: a sibling.
			default:
				continue
			}
			if cmd == nil {
				continue
			}
			for i, w := range words {
				if (i == 0 || words[i-1] == "|" || words[i-1] == "/") && regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
					subcommand(t, cmd, w)
					checked++
				}
			}
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			checked += len(longFlag.FindAllStringSubmatch(m[1], -1))
			for _, f := range shortLong.FindAllStringSubmatch(m[1], -1) {
				if fls := all[f[2]]; fls != nil && !slices.ContainsFunc(fls, func(fl *pflag.Flag) bool { return fl.Shorthand == f[1] }) {
					t.Errorf("README.md writes -%s/--%s, but no --%s has the shorthand -%s", f[1], f[2], f[2], f[1])
				}
			}
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatch(section, -1) {
		for _, f := range longFlag.FindAllStringSubmatch(m[1], -1) {
			if all[f[1]] == nil {
				t.Errorf("README.md's command line names --%s, which no command has: %s", f[1], m[1])
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d names checked in README.md's command line; the parser is stale", checked)
	}
}

// subcommand is parent's subcommand name (or alias), or a test error.
func subcommand(t *testing.T, parent *cobra.Command, name string) *cobra.Command {
	t.Helper()
	for _, c := range parent.Commands() {
		if c.Name() == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	t.Errorf("README.md's command line names `%s %s`, which the command tree does not have", parent.CommandPath(), name)
	return nil
}
