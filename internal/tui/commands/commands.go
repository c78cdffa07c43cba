// Package commands is the slash-command registry of the TUI (CONTRACT.md §14.7):
// the one table of names, aliases, usages and descriptions that dispatch,
// the slash menu, /help and the unknown-command suggestions all read.
// Handlers live with the root model; this package only parses and resolves.
package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/textdist"
)

// Command is one registered slash command.
type Command struct {
	Name    string
	Aliases []string
	Usage   string // argument synopsis, "" when none
	Help    string // one-line description
}

// Registry resolves command names and aliases.
type Registry struct {
	cmds   []Command
	byName map[string]int
}

// New indexes cmds by name and alias.
func New(cmds []Command) *Registry {
	r := &Registry{cmds: cmds, byName: map[string]int{}}
	for i, c := range cmds {
		r.byName[c.Name] = i
		for _, a := range c.Aliases {
			r.byName[a] = i
		}
	}
	return r
}

// Commands returns the commands in registry order.
func (r *Registry) Commands() []Command { return r.cmds }

// Lookup resolves a name or alias (without the slash, lower case).
func (r *Registry) Lookup(name string) (Command, bool) {
	i, ok := r.byName[name]
	if !ok {
		return Command{}, false
	}
	return r.cmds[i], true
}

// Invocation is a parsed command line.
type Invocation struct {
	Name string // as typed, lower-cased, without the slash
	Arg  string // trimmed remainder, "" when absent
}

// Parse reads a composer line whose first non-space character is `/`.
func Parse(line string) (Invocation, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "/") {
		return Invocation{}, false
	}
	s = s[1:]
	name, arg := s, ""
	if i := strings.IndexAny(s, " \t\n"); i >= 0 {
		name, arg = s[:i], strings.TrimSpace(s[i+1:])
	}
	return Invocation{Name: strings.ToLower(name), Arg: arg}, true
}

// ModeAlias resolves the fixed mode aliases that run before the registry:
// /jihua is /mode plan and /zidong is /mode yolo.
func ModeAlias(name string) (arg string, ok bool) {
	switch name {
	case "jihua":
		return "plan", true
	case "zidong":
		return "yolo", true
	}
	return "", false
}

// Retired answers the retired command names with their exact errors.
func Retired(name string) (string, bool) {
	switch name {
	case "set":
		return "The /set command was retired. Use /config to edit settings and /settings to inspect current values.", true
	case "deepseek":
		return "The /deepseek command was retired. /status shows the route and where the key comes from; `codewhale doctor` checks the setup.", true
	case "doctor":
		return "The /doctor command is a CLI diagnostic. Run `codewhale doctor` or `codewhale doctor --json` in a shell; /status and /settings show this session.", true
	}
	return "", false
}

// Unknown is the exact error for an unknown command, with up to three
// suggestions by edit distance.
func (r *Registry) Unknown(name string) string {
	if s := r.Suggest(name); len(s) > 0 {
		return fmt.Sprintf("Unknown command: /%s. Did you mean: %s? Type /help for available commands.", name,
			"/"+strings.Join(s, ", /"))
	}
	return fmt.Sprintf("Unknown command: /%s. Type /help for available commands.", name)
}

// Suggest returns up to three command names that resemble name (a name or
// alias within edit distance 2, or a prefix of it), closest first.
func (r *Registry) Suggest(name string) []string {
	keys := make([]string, 0, len(r.byName))
	for key := range r.byName {
		keys = append(keys, key)
	}
	var out []string
	for _, key := range textdist.Suggest(name, keys, 2, len(keys)) {
		if primary := r.cmds[r.byName[key]].Name; !slices.Contains(out, primary) && primary != name {
			out = append(out, primary)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// MenuLimit bounds the slash menu.
const MenuLimit = 128

// Match is a slash-menu row: the command and the name or alias that
// matched the typed prefix.
type Match struct {
	Command
	Matched string
}

// Complete returns the commands whose name or an alias starts with prefix,
// in registry order, at most MenuLimit.
func (r *Registry) Complete(prefix string) []Match {
	prefix = strings.ToLower(prefix)
	var out []Match
	for _, c := range r.cmds {
		matched := ""
		if strings.HasPrefix(c.Name, prefix) {
			matched = c.Name
		} else {
			for _, a := range c.Aliases {
				if strings.HasPrefix(a, prefix) {
					matched = a
					break
				}
			}
		}
		if matched != "" {
			out = append(out, Match{Command: c, Matched: matched})
			if len(out) == MenuLimit {
				break
			}
		}
	}
	return out
}

// HelpText is `/help <command>`: usage and aliases, or the unknown topic.
func (r *Registry) HelpText(topic string) string {
	topic = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(topic)), "/")
	c, ok := r.Lookup(topic)
	if !ok {
		return "Unknown command: " + topic
	}
	usage := "/" + c.Name
	if c.Usage != "" {
		usage += " " + c.Usage
	}
	aliases := "none"
	if len(c.Aliases) > 0 {
		aliases = "/" + strings.Join(c.Aliases, ", /")
	}
	return fmt.Sprintf("/%s — %s\nUsage: %s\nAliases: %s", c.Name, c.Help, usage, aliases)
}
