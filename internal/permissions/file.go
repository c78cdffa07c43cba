package permissions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// FileName is the rule file's name in $CODEWHALE_HOME and in a project's
// .codewhale/.
const FileName = "permissions.toml"

type fileBody struct {
	Rules []Rule `toml:"rules"`
}

// Load reads the global rules (globalPath) and the project's
// (<workspace>/.codewhale/permissions.toml). A missing file has no rules; a
// malformed one is an error naming the file and line, so a typo never
// silently drops a deny.
func Load(globalPath, workspace string) (*Set, error) {
	s := &Set{globalPath: globalPath, workspace: workspace}
	var err error
	if s.global, err = readRules(globalPath); err != nil {
		return nil, err
	}
	if workspace == "" {
		return s, nil
	}
	projectPath := filepath.Join(workspace, ".codewhale", FileName)
	project, err := readProjectRules(workspace, projectPath)
	if err != nil {
		return nil, err
	}
	for _, r := range project {
		if r.Action == "allow" {
			// A project's files come with the repository: they may only
			// tighten what the user allows.
			s.ignored = append(s.ignored, r.Source()+": "+r.String()+" (a project file can only tighten)")
			continue
		}
		s.project = append(s.project, r)
	}
	return s, nil
}

func readRules(p string) ([]Rule, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("permissions: reading %s: %w", p, err)
	}
	return parseRules(p, data)
}

// readProjectRules reads the workspace's rule file through the confined
// reader (internal/tools/confine): the model can write the workspace, so
// the file is read only where it resolves inside it, through no link
// swapped in after that check.
func readProjectRules(workspace, p string) ([]Rule, error) {
	data, _, err := confine.ReadBeneath(workspace, p, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.Is(err, confine.ErrEscape):
		return nil, fmt.Errorf("permissions: %s resolves to %s, outside the workspace; project rules are read only "+
			"from inside it: put the file itself there, not a link", p, confine.Resolve(p))
	case err != nil:
		return nil, fmt.Errorf("permissions: reading %s: %w", p, err)
	}
	return parseRules(p, data)
}

func parseRules(p string, data []byte) ([]Rule, error) {
	var body fileBody
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("permissions: %s line %d, column %d: %s", p, row, col, de.Error())
		}
		return nil, fmt.Errorf("permissions: %s: %w (keys: action, tool, tool_action, command, command_exact, "+
			"pattern, path, workspace, note)", p, err)
	}
	for i := range body.Rules {
		r := &body.Rules[i]
		r.file, r.index = p, i+1
		if decisionOf(r.Action) == None {
			return nil, fmt.Errorf("permissions: %s rule %d: action %q must be allow, ask or deny", p, i+1, r.Action)
		}
		if r.Tool == "" && r.Command == "" && r.Pattern == "" && r.Path == "" && r.ToolAction == "" {
			return nil, fmt.Errorf("permissions: %s rule %d: a rule needs at least one of tool, tool_action, "+
				"command, pattern or path", p, i+1)
		}
		if strings.HasPrefix(r.Path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				r.Path = filepath.Join(home, r.Path[2:])
			}
		}
	}
	return body.Rules, nil
}

// Rules lists the rules in force, global first, in file order.
func (s *Set) Rules() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(append([]Rule(nil), s.global...), s.project...)
}

// Ignored lists the project allow rules dropped at load.
func (s *Set) Ignored() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ignored...)
}

// RuleFor is the rule "Always allow this" saves for a call: this tool and
// action and, for a command, exactly this command (a single simple command
// the parser sees whole), or exactly the one file the call names (`path` or
// `file_path`, written as a glob that matches that path only). ok is false
// when no such exact rule can be written (a pipeline, a computed word, two
// paths, or a call that names neither a command nor a file — a rule of only
// its tool and action would allow every call of that action, whatever its
// other arguments: CONTRACT.md §12.6).
func RuleFor(tool string, in json.RawMessage, workspace string) (Rule, bool) {
	r := Rule{Action: "allow", Tool: tool, ToolAction: tools.PeekAction(in, "")}
	c := newCall(tool, in, workspace)
	if c.hasCommand {
		if !c.complete || len(c.commands) != 1 {
			return Rule{}, false
		}
		r.Command, r.CommandExact = shellJoin(c.commands[0]), true
		return r, r.Command != ""
	}
	targets := targetPaths(in, workspace)
	if len(targets) != 1 {
		return Rule{}, false
	}
	rel, err := filepath.Rel(workspace, targets[0])
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = targets[0]
	} else if strings.HasPrefix(rel, "~") {
		rel = "." + string(filepath.Separator) + rel // not the home directory when the file is read again
	}
	r.Path = globQuote(rel)
	return r, true
}

// targetPaths are the files a call names (a cwd says where it runs, not
// what it touches), absolute.
func targetPaths(in json.RawMessage, workspace string) []string {
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	var out []string
	for _, k := range []string{"path", "file_path"} {
		if p, ok := m[k].(string); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(workspace, p)
			}
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// globQuote writes p as a doublestar pattern that matches p alone: each
// meta character becomes a one-character class (a backslash escape would
// not survive filepath.ToSlash on Windows, where `\` is the separator).
func globQuote(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch {
		case strings.ContainsRune("*?[{}", r):
			b.WriteString("[" + string(r) + "]")
		case r == '\\' && filepath.Separator != '\\':
			b.WriteString(`[\\]`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shellJoin writes argv back as words the rule's command field splits the
// same way (no word of a saved rule holds a blank).
func shellJoin(argv []string) string {
	for _, a := range argv {
		if strings.ContainsAny(a, " \t\n") {
			return ""
		}
	}
	return strings.Join(argv, " ")
}

// SaveAllow appends r to the global rule file and puts it in force. It
// returns the rule as saved, whose Source says where.
func (s *Set) SaveAllow(r Rule) (Rule, error) {
	if r.Action != "allow" || (r.Command == "" && r.CommandExact) {
		return Rule{}, errors.New("permissions: only an exact allow rule can be saved from an approval")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rules := append(append([]Rule(nil), s.global...), r)
	if err := s.writeGlobal(rules); err != nil {
		return Rule{}, err
	}
	r.file, r.index = s.globalPath, len(rules)
	s.global = append(s.global, r)
	return r, nil
}

// Remove deletes the i-th rule of Rules() (from 1) from its file. Only
// rules of the global file can be removed here; a project's rules belong to
// the repository.
func (s *Set) Remove(i int) (Rule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case i < 1 || i > len(s.global)+len(s.project):
		return Rule{}, fmt.Errorf("no rule %d (there are %d)", i, len(s.global)+len(s.project))
	case i > len(s.global):
		r := s.project[i-len(s.global)-1]
		return Rule{}, fmt.Errorf("rule %d is the project's (%s): edit that file to change it", i, r.Source())
	}
	removed := s.global[i-1]
	rules := append(append([]Rule(nil), s.global[:i-1]...), s.global[i:]...)
	if err := s.writeGlobal(rules); err != nil {
		return Rule{}, err
	}
	for j := range rules {
		rules[j].index = j + 1
	}
	s.global = rules
	return removed, nil
}

func (s *Set) writeGlobal(rules []Rule) error {
	if s.globalPath == "" {
		return errors.New("permissions: no global rule file is configured")
	}
	body, err := toml.Marshal(fileBody{Rules: rules})
	if err != nil {
		return err
	}
	header := "# CodeWhale permission rules (allow | ask | deny). Order: hard block > deny > protected path > ask >\n" +
		"# allow > posture default. Written by codewhale; comments are not kept.\n\n"
	if err := os.MkdirAll(filepath.Dir(s.globalPath), 0o700); err != nil {
		return fmt.Errorf("permissions: %w", err)
	}
	if err := atomicfile.Write(s.globalPath, append([]byte(header), body...), 0o600, false); err != nil {
		return fmt.Errorf("permissions: writing %s: %w", s.globalPath, err)
	}
	return nil
}
