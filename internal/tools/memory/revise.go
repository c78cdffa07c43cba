package memory

import (
	"fmt"
	"strings"
	"time"
)

// entryText is the remembered text of a Markdown line, "" for lines that
// are not entries (blank, rules, headings).
func entryText(line string) string {
	t := strings.TrimSpace(line)
	if t == "" || t == "---" || strings.HasPrefix(t, "#") {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "- "), "-"))
}

// find locates the entry replaces names: an exact match (the newest when
// repeated), else a unique case-insensitive substring match.
func find(lines []string, replaces string, scope Scope) (int, error) {
	exact, partial := -1, []int(nil)
	want := strings.ToLower(replaces)
	for i, l := range lines {
		text := entryText(l)
		switch {
		case text == "":
		case text == replaces:
			exact = i
		case strings.Contains(strings.ToLower(text), want):
			partial = append(partial, i)
		}
	}
	switch {
	case exact >= 0:
		return exact, nil
	case len(partial) == 1:
		return partial[0], nil
	case len(partial) > 1:
		return 0, inputError("memory entry `%s` is ambiguous: it matches %d entries in %s memory; quote the whole entry", replaces, len(partial), scope)
	}
	return 0, inputError("no memory entry matches `%s` in %s memory", replaces, scope)
}

// Change is what Revise or Retire did.
type Change struct {
	Entry          // the new entry (revise) or the removed one (retire)
	Old     string // the replaced text
	Journal string // the audit journal written
}

// Revise replaces the entry that replaces names with note, in place, and
// records the change with its evidence in the journal.
func (s *Store) Revise(scope Scope, workspace, replaces, rawNote, evidence string) (Change, error) {
	note, err := NormalizeNote(rawNote)
	if err != nil {
		return Change{}, err
	}
	return s.rewrite(scope, workspace, replaces, evidence, "revise", func(lines []string, i int) []string {
		lines[i] = "- " + note
		return lines
	}, note)
}

// Retire removes the entry replaces names (and the blank line an append put
// before it) and records why in the journal.
func (s *Store) Retire(scope Scope, workspace, replaces, evidence string) (Change, error) {
	return s.rewrite(scope, workspace, replaces, evidence, "retire", func(lines []string, i int) []string {
		start := i
		if i > 0 && strings.TrimSpace(lines[i-1]) == "" {
			start = i - 1
		}
		return append(lines[:start], lines[i+1:]...)
	}, "")
}

func (s *Store) rewrite(scope Scope, workspace, rawReplaces, rawEvidence, action string,
	edit func([]string, int) []string, note string) (Change, error) {
	replaces, err := normalizeField("replaces", rawReplaces)
	if err != nil {
		return Change{}, err
	}
	evidence, err := normalizeField("evidence", rawEvidence)
	if err != nil {
		return Change{}, err
	}
	path, err := s.Path(scope, workspace)
	if err != nil {
		return Change{}, err
	}
	var c Change
	err = s.locked(func() error {
		content, err := readFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(content, "\n")
		i, err := find(lines, replaces, scope)
		if err != nil {
			return err
		}
		c = Change{Entry: Entry{Scope: scope, Path: path, Line: i + 1, Text: note}, Old: entryText(lines[i]), Journal: s.JournalPath()}
		if action == "retire" {
			c.Text = c.Old
		}
		if err := writeAtomic(path, strings.Join(edit(lines, i), "\n")); err != nil {
			return err
		}
		return appendFile(s.JournalPath(), journalEntry(action, c, evidence))
	})
	return c, err
}

func normalizeField(field, raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", inputError("%s is required for revise and retire: name the entry and why it changes", field)
	}
	return NormalizeNote(raw)
}

func journalEntry(action string, c Change, evidence string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s %s %s\n- file: %s:%d\n- before: %s\n", time.Now().UTC().Format(time.RFC3339), action, c.Scope, c.Path, c.Line, c.Old)
	if action == "revise" {
		fmt.Fprintf(&b, "- after: %s\n", c.Text)
	}
	fmt.Fprintf(&b, "- evidence: %s\n", evidence)
	return b.String()
}
