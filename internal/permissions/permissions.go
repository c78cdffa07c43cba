// Package permissions holds the permission rules that persist across
// sessions: permissions.toml in $CODEWHALE_HOME (global) and in the
// project's .codewhale/ (which can only tighten: its allow rules are
// ignored). Rules match a call by tool, the tool's action, a command prefix
// or pattern (matched on the parsed simple commands, never as a substring:
// `git push` matches `git push origin main`, not `echo git push`) and a
// path glob, and say allow, ask or deny.
//
// The engine applies them in this order (README, "Permission rules"): hard
// block > deny > protected path > ask > allow > posture default. Among the
// rules, any matching deny wins over any ask, which wins over any allow;
// within one kind the first matching rule is the one reported.
package permissions

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codewhale/codewhale/internal/shellpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// Decision is what the rules say about a call.
type Decision int

const (
	None Decision = iota
	Allow
	Ask
	Deny
)

func (d Decision) String() string { return [...]string{"none", "allow", "ask", "deny"}[d] }

// Rule is one [[rules]] entry.
type Rule struct {
	Action       string `toml:"action"`                  // allow | ask | deny
	Tool         string `toml:"tool,omitempty"`          // a tool name or glob (mcp_*); "" or "*" is any
	ToolAction   string `toml:"tool_action,omitempty"`   // the tool's action (run, write, …); "" is any
	Command      string `toml:"command,omitempty"`       // a command prefix, as shell words
	CommandExact bool   `toml:"command_exact,omitempty"` // the command must be exactly Command
	Pattern      string `toml:"pattern,omitempty"`       // a glob over a simple command's words joined by spaces
	Path         string `toml:"path,omitempty"`          // a path glob (doublestar), workspace-relative or absolute
	Workspace    string `toml:"workspace,omitempty"`     // only in this workspace
	Note         string `toml:"note,omitempty"`

	file  string // where it was read
	index int    // its position there, from 1
}

// Source names where a rule was written ("~/.codewhale/permissions.toml
// rule 3").
func (r Rule) Source() string { return fmt.Sprintf("%s rule %d", r.file, r.index) }

// String describes the rule in one line.
func (r Rule) String() string {
	parts := []string{r.Action}
	tool := r.Tool
	if tool == "" {
		tool = "*"
	}
	parts = append(parts, "tool="+tool)
	for _, kv := range [][2]string{{"tool_action", r.ToolAction}, {"command", r.Command}, {"pattern", r.Pattern},
		{"path", r.Path}, {"workspace", r.Workspace}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", kv[0], kv[1]))
		}
	}
	if r.CommandExact {
		parts = append(parts, "command_exact")
	}
	return strings.Join(parts, " ")
}

// Set is the rules in force for one workspace.
type Set struct {
	mu         sync.Mutex
	globalPath string
	workspace  string
	global     []Rule
	project    []Rule
	ignored    []string // project allow rules dropped at load, for /permissions
}

// Decide returns what the rules say about a call of tool with input in,
// and the deciding rule (nil for None).
func (s *Set) Decide(tool string, in json.RawMessage) (Decision, *Rule) {
	if s == nil {
		return None, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := newCall(tool, in, s.workspace)
	var best *Rule
	bestD := None
	for _, rules := range [][]Rule{s.global, s.project} {
		for i := range rules {
			r := &rules[i]
			d := decisionOf(r.Action)
			if d <= bestD || !r.matches(c, s.workspace) {
				continue
			}
			best, bestD = r, d
		}
	}
	if best == nil {
		return None, nil
	}
	cp := *best
	return bestD, &cp
}

func decisionOf(action string) Decision {
	switch action {
	case "allow":
		return Allow
	case "ask":
		return Ask
	case "deny":
		return Deny
	}
	return None
}

// call is what rules match against.
type call struct {
	tool, action string
	commands     [][]string
	complete     bool // every simple command was visible
	hasCommand   bool
	paths        []string // absolute
}

func newCall(tool string, in json.RawMessage, workspace string) call {
	c := call{tool: tool, action: tools.PeekAction(in, "")}
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	if cmd, ok := m["command"].(string); ok && cmd != "" {
		c.hasCommand = true
		c.commands, c.complete = shellpolicy.Commands(cmd)
	}
	for _, k := range []string{"path", "cwd", "file_path"} {
		if p, ok := m[k].(string); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(workspace, p)
			}
			c.paths = append(c.paths, filepath.Clean(p))
		}
	}
	return c
}

// matches reports whether r applies to c. An allow rule must cover the
// whole call (every simple command, every path, and a command it could see
// completely); ask and deny apply when any part matches.
func (r *Rule) matches(c call, workspace string) bool {
	if r.Workspace != "" && filepath.Clean(r.Workspace) != filepath.Clean(workspace) {
		return false
	}
	if r.Tool != "" && r.Tool != "*" {
		if ok, _ := path.Match(r.Tool, c.tool); !ok {
			return false
		}
	}
	if r.ToolAction != "" && r.ToolAction != c.action {
		return false
	}
	all := r.Action == "allow"
	if r.Command != "" || r.Pattern != "" {
		if !c.hasCommand || all && !c.complete || !matchEach(c.commands, all, r.matchesCommand) {
			return false
		}
	}
	if r.Path != "" {
		if len(c.paths) == 0 || !matchEach(c.paths, all, func(p string) bool { return r.matchesPath(p, workspace) }) {
			return false
		}
	}
	return true
}

func matchEach[T any](xs []T, all bool, f func(T) bool) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if f(x) != all {
			return !all
		}
	}
	return all
}

func (r *Rule) matchesCommand(argv []string) bool {
	if r.Command != "" {
		want := strings.Fields(r.Command)
		if len(argv) < len(want) || r.CommandExact && len(argv) != len(want) {
			return false
		}
		for i, w := range want {
			if argv[i] != w && !(i == 0 && path.Base(argv[0]) == w) {
				return false
			}
		}
	}
	if r.Pattern != "" {
		ok, _ := path.Match(r.Pattern, strings.Join(argv, " "))
		return ok
	}
	return true
}

func (r *Rule) matchesPath(abs, workspace string) bool {
	pattern := r.Path
	if strings.HasPrefix(pattern, "~/") {
		return false // resolved at load
	}
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(workspace, pattern)
	}
	ok, _ := doublestar.Match(filepath.ToSlash(pattern), filepath.ToSlash(abs))
	return ok
}
