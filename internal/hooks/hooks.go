// Package hooks runs the user's hooks (CONTRACT.md §17.4): shell commands
// configured as [[hooks]] in config.toml, or in a project's
// .codewhale/hooks.toml once the user has trusted that file, that see a
// JSON payload on stdin at the session's seams and may rewrite or block a
// message, deny a tool call or ask for its approval, add a note to a
// result, or add environment for commands. A hook that fails or hangs is
// killed at its timeout and reported; it never fails a turn.
package hooks

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/engine"
)

// The events the host fires; the engine fires the rest (engine.HookX).
const (
	SessionStart = "session_start"
	ShellEnv     = "shell_env"
)

// Events lists every event a hook may name, in the order a session meets
// them.
var Events = []string{SessionStart, ShellEnv, engine.HookMessageSubmit, engine.HookToolBefore, engine.HookToolAfter,
	engine.HookNotification, engine.HookTurnEnd}

// Timeouts of one hook run.
const (
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Hook is one configured hook, validated.
type Hook struct {
	Name    string // the configured name, or the command's first word
	Event   string
	Matcher string
	Command string
	Timeout time.Duration
	Source  string // the file it came from
	match   *matcher
}

// compile validates spec (the n-th hook of source) into a Hook. Its errors
// name the hook by position, and by name when it has one.
func compile(spec config.Hook, source string, n int) (*Hook, error) {
	where := fmt.Sprintf("%s: hooks[%d]", source, n)
	if spec.Name != "" {
		where += fmt.Sprintf(" (name %q)", spec.Name)
	}
	if !slices.Contains(Events, spec.Event) {
		return nil, fmt.Errorf("%s: unknown event %q (one of %s)", where, spec.Event, strings.Join(Events, ", "))
	}
	if strings.TrimSpace(spec.Command) == "" {
		return nil, fmt.Errorf("%s: command is empty", where)
	}
	h := &Hook{Name: spec.Name, Event: spec.Event, Matcher: strings.TrimSpace(spec.Matcher), Command: spec.Command,
		Timeout: DefaultTimeout, Source: source}
	if spec.TimeoutMS < 0 || time.Duration(spec.TimeoutMS)*time.Millisecond > MaxTimeout {
		return nil, fmt.Errorf("%s: timeout_ms %d is outside 1..%d", where, spec.TimeoutMS, MaxTimeout.Milliseconds())
	}
	if spec.TimeoutMS > 0 {
		h.Timeout = time.Duration(spec.TimeoutMS) * time.Millisecond
	}
	if h.Name == "" {
		h.Name = filepath.Base(strings.Fields(spec.Command)[0])
	}
	if h.Matcher != "" {
		if h.Event != engine.HookToolBefore && h.Event != engine.HookToolAfter && h.Event != engine.HookNotification {
			return nil, fmt.Errorf("%s: matcher applies to tool_call_before, tool_call_after and notification hooks only", where)
		}
		m, err := parseMatcher(h.Matcher)
		if err != nil {
			return nil, fmt.Errorf("%s: matcher %q: %w", where, h.Matcher, err)
		}
		h.match = m
	}
	return h, nil
}

// matcher is `Tool`, `Tool:action`, `Tool(glob)` or `Tool:action(glob)`,
// several joined by `|`; `*` in a tool name or glob matches anything. The
// glob is matched against the call's main argument (command, path,
// pattern, query, url). For notifications the matcher names kinds.
type matcher struct{ alts []alt }

type alt struct {
	tool, action *regexp.Regexp
	subject      *regexp.Regexp // nil = any
}

func parseMatcher(s string) (*matcher, error) {
	m := &matcher{}
	for _, part := range strings.Split(s, "|") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("an alternative is empty")
		}
		var a alt
		if i := strings.IndexByte(part, '('); i >= 0 {
			if !strings.HasSuffix(part, ")") {
				return nil, fmt.Errorf("%q: a pattern in parentheses must end the alternative", part)
			}
			a.subject = glob(part[i+1 : len(part)-1])
			part = part[:i]
		}
		tool, action, _ := strings.Cut(part, ":")
		if tool == "" {
			return nil, fmt.Errorf("%q names no tool", part)
		}
		a.tool = glob(tool)
		if action != "" {
			a.action = glob(action)
		}
		m.alts = append(m.alts, a)
	}
	return m, nil
}

// glob is a whole-string pattern where `*` is any run of characters and
// `?` one character; everything else is literal. The standard library's
// path.Match stops `*` at a slash, which a shell command pattern must
// cross ("rm -rf /*").
func glob(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^(?s:")
	for _, r := range p {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(")$")
	return regexp.MustCompile(b.String())
}

// matches reports whether the hook applies to call.
func (h *Hook) matches(call engine.HookCall) bool {
	if h.match == nil {
		return true
	}
	if h.Event == engine.HookNotification {
		for _, a := range h.match.alts {
			if a.tool.MatchString(call.Kind) {
				return true
			}
		}
		return false
	}
	action, subject := argsOf(call.Input)
	for _, a := range h.match.alts {
		if a.tool.MatchString(call.Tool) && (a.action == nil || a.action.MatchString(action)) &&
			(a.subject == nil || a.subject.MatchString(subject)) {
			return true
		}
	}
	return false
}
