package projectctx

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
)

// Bounds of user commands.
const (
	maxCommandBytes   = 64 << 10
	maxCommandsPerDir = 200
	maxNamespaceDepth = 3
)

// Command is a user slash command: a Markdown file whose body becomes the
// message, with $ARGUMENTS and $1…$9 filled in (CONTRACT.md §17.2).
type Command struct {
	Name         string // "review", "frontend:lint" (subfolders are namespaces)
	Description  string
	ArgumentHint string
	Model        string
	// Mode is the mode the command's turn runs in ("" = the session's); it
	// may narrow the session's mode, never widen it.
	Mode *posture.Mode
	// AllowedTools limits the turn's tools (nil = no limit), as tool names
	// or prefix* rules.
	AllowedTools []string
	Path         string
	Source       string // where it was found, e.g. "project .codewhale/commands"
	// Notes are caveats shown with the command (an allowed-tools argument
	// pattern that cannot be enforced, a Claude Code tool name mapped).
	Notes []string
	body  string
}

// source is one folder of commands or skills, in precedence order.
type source struct {
	dir   string
	label string
	area  area
}

// sources are the folders of one kind ("commands" or "skills") in
// precedence order: the project's .codewhale, its .claude, then the home;
// home and ws are canonical.
func sources(home, ws, kind string) []source {
	out := []source{
		{under(ws, ".codewhale", kind), "project .codewhale/" + kind, projectArea(ws)},
		{under(ws, ".claude", kind), "project .claude/" + kind, projectArea(ws)},
	}
	if home != "" {
		ha := homeArea(home, kind)
		// The folder itself may link anywhere (the user's choice); it is
		// listed at the place it resolves to, through no link.
		out = append(out, source{under(home, kind), "user $CODEWHALE_HOME/" + kind, ha})
	}
	return out
}

// loadCommands reads every source; a name found in an earlier source
// shadows the later ones, which are reported.
func loadCommands(srcs []source, w *watch) (cmds []Command, problems []string) {
	sh := newShadowing[Command](func(n string) string { return "/" + n }, "commands", maxCommandsPerDir)
	for _, src := range srcs {
		sh.next()
		walkCommands(src, src.dir, "", 0, w, func(c Command, problem string) {
			sh.offer(src.label, c.Name, c.Path, c, problem)
		})
	}
	return sh.admitted, sh.problems
}

// walkCommands visits the .md files under dir (namespace prefix ns); dir
// is canonical.
func walkCommands(src source, dir, ns string, depth int, w *watch, visit func(Command, string)) {
	entries, err := w.readDir(dir)
	if err != nil {
		return // a missing folder has no commands
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") {
			continue
		}
		isDir, link := e.IsDir(), e.Type()&fs.ModeSymlink != 0
		if link {
			w.lstat(path)
			fi, err := os.Stat(path)
			if err != nil {
				continue
			}
			isDir = fi.IsDir()
		}
		if isDir {
			if depth < maxNamespaceDepth {
				sub := path
				if link {
					sub = canonical(path)
				}
				walkCommands(src, sub, ns+strings.ToLower(name)+":", depth+1, w, visit)
			}
			continue
		}
		if !strings.EqualFold(filepath.Ext(name), ".md") {
			continue
		}
		visit(readCommand(src, path, ns+strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name))), link, w))
	}
}

func readCommand(src source, path, name string, link bool, w *watch) (Command, string) {
	if !validName(name) {
		return Command{}, fmt.Sprintf("%s: %q is not a usable command name (letters, digits, '-', '_' and '.', namespaces joined by ':')", path, name)
	}
	real, why := src.area.admit(path, !link)
	if why != "" {
		return Command{}, fmt.Sprintf("%s: not read: %s", path, why)
	}
	data, fi, err := readReal(w.files, real, maxCommandBytes+1)
	if err != nil {
		return Command{}, fmt.Sprintf("%s: not read: %v", path, err)
	}
	if !link {
		w.record(path, fi)
	}
	if fi.Size() > maxCommandBytes {
		return Command{}, fmt.Sprintf("%s: %d bytes is more than the %d KiB a command may have", path, fi.Size(), maxCommandBytes>>10)
	}
	meta, body, _ := splitFrontmatter(string(data))
	fm, err := parseFrontmatter(path, meta)
	if err != nil {
		return Command{}, err.Error()
	}
	c := Command{Name: name, Description: fm.Description, ArgumentHint: fm.ArgumentHint, Model: fm.Model,
		Path: path, Source: src.label, body: body}
	if c.Description == "" {
		c.Description = firstLine(body)
	}
	if fm.Mode != "" {
		m, err := posture.ParseMode(fm.Mode)
		if err != nil {
			return Command{}, fmt.Sprintf("%s: frontmatter: mode: %v", path, err)
		}
		c.Mode = &m
	}
	c.AllowedTools, c.Notes = mapTools(toolList(fm.AllowedTools))
	return c, ""
}

func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, seg := range strings.Split(name, ":") {
		if seg == "" {
			return false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return false
			}
		}
	}
	return true
}

// firstLine is a command's description when its frontmatter gives none:
// the first non-empty body line, without Markdown heading marks.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			if r := []rune(l); len(r) > 80 {
				l = string(r[:79]) + "…"
			}
			return l
		}
	}
	return ""
}

// claudeTools maps Claude Code's tool names in allowed-tools onto ours, so
// a .claude/commands file keeps its intent.
var claudeTools = map[string]string{"Read": "File", "Write": "File", "Edit": "File", "MultiEdit": "File",
	"Grep": "File", "Glob": "File", "LS": "File", "NotebookRead": "File", "NotebookEdit": "File", "WebFetch": "Web",
	"WebSearch": "Web", "Task": "agent", "TodoWrite": "work_update", "BashOutput": "Bash", "KillShell": "Bash",
	"Skill": "load_skill"}

// mapTools turns allowed-tools entries into our rules. An argument pattern
// ("Bash(git add:*)") cannot be enforced — our rules name whole tools — so
// the whole tool is allowed and a note says so.
func mapTools(raw []string) (rules, notes []string) {
	if raw == nil {
		return nil, nil
	}
	rules = []string{}
	for _, r := range raw {
		name := r
		if i := strings.IndexByte(r, '('); i >= 0 {
			name = strings.TrimSpace(r[:i])
			notes = append(notes, fmt.Sprintf("allowed-tools %q: argument patterns are not enforced; all of %s is allowed", r, name))
		}
		if ours, ok := claudeTools[name]; ok {
			name = ours
		}
		if name != "" && !slices.Contains(rules, name) {
			rules = append(rules, name)
		}
	}
	return rules, notes
}

// Expand is the message the command sends for args: $ARGUMENTS is the
// whole argument text, $1…$9 its words (quotes group words; nothing else
// is interpreted). A body with no placeholder gets the arguments appended.
func (c *Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := SplitArgs(args)
	body := strings.TrimSpace(c.body)
	var b strings.Builder
	used := false
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		rest := body[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += len("ARGUMENTS")
			used = true
		case len(rest) > 0 && rest[0] >= '1' && rest[0] <= '9' && (len(rest) == 1 || rest[1] < '0' || rest[1] > '9'):
			if n := int(rest[0] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			i++
			used = true
		default:
			b.WriteByte('$')
		}
	}
	if !used && args != "" {
		b.WriteString("\n\nArguments: " + args)
	}
	return b.String()
}

// SplitArgs splits a prompt's arguments on white space, with "double" and
// 'single' quotes grouping words — for project commands' $1…$N and MCP
// prompts' arguments alike. It is deliberately not a shell: no variables,
// globs or escapes are interpreted in text the user typed for a prompt.
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
