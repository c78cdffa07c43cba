// Package memory implements the user's durable memory (CONTRACT.md §6.6,
// CONTRACT.md §12.4): Markdown files under <CODEWHALE_HOME>/memory, the
// `remember` tool that appends, revises and retires entries, and the bounded
// block that carries them into the system prompt as untrusted user data.
//
// Layout: memory/global/MEMORY.md, memory/workspace/<sha256(origin url)>/
// MEMORY.md, and memory/JOURNAL.md, the audit trail of revisions and
// retirements. Markdown is authoritative; nothing else is kept.
package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/gitrepo"
)

// MaxNoteBytes caps one note after normalisation.
const MaxNoteBytes = 64 << 10

// Scope selects a memory file.
type Scope string

const (
	Global    Scope = "global"
	Workspace Scope = "workspace"
)

// ErrNoOrigin is the exact refusal for workspace memory outside a git
// repository with an origin remote.
var ErrNoOrigin = errors.New("workspace memory requires a git repository with an origin")

// Store is the memory tree under <root>/memory, where root is the
// codewhale home (the parent of memory_path).
type Store struct {
	dir string
}

// NewStore returns the store of the codewhale home root.
func NewStore(root string) *Store { return &Store{dir: filepath.Join(root, "memory")} }

// Dir is the memory directory.
func (s *Store) Dir() string { return s.dir }

// GlobalPath is memory/global/MEMORY.md.
func (s *Store) GlobalPath() string { return filepath.Join(s.dir, "global", "MEMORY.md") }

// JournalPath is memory/JOURNAL.md.
func (s *Store) JournalPath() string { return filepath.Join(s.dir, "JOURNAL.md") }

// Path returns the file of scope for workspace.
func (s *Store) Path(scope Scope, workspace string) (string, error) {
	if scope == Global {
		return s.GlobalPath(), nil
	}
	id, err := WorkspaceID(workspace)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, "workspace", id, "MEMORY.md"), nil
}

// WorkspaceID is the hex SHA-256 of the repository's remote.origin.url, so
// every clone and worktree of one project shares its memory. A directory
// outside git, or a repository without an origin, has none (ErrNoOrigin).
func WorkspaceID(workspace string) (string, error) {
	repo, err := gitrepo.Open(workspace)
	if err != nil {
		return "", ErrNoOrigin
	}
	cfg, err := repo.Storer.Config()
	if err != nil {
		return "", fmt.Errorf("read git config of %s: %w", workspace, err)
	}
	origin, ok := cfg.Remotes["origin"]
	if !ok || len(origin.URLs) == 0 || strings.TrimSpace(origin.URLs[0]) == "" {
		return "", ErrNoOrigin
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(origin.URLs[0])))
	return hex.EncodeToString(sum[:]), nil
}

// NormalizeNote folds a note to one line: CR/CRLF become LF, lines are
// trimmed, blank lines dropped, the rest joined with single spaces, and a
// leading "-" is stripped. An empty result or one over MaxNoteBytes is
// refused.
func NormalizeNote(raw string) (string, error) {
	raw = strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n")
	var parts []string
	for _, line := range strings.Split(raw, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	note := strings.TrimSpace(strings.TrimPrefix(strings.Join(parts, " "), "-"))
	switch {
	case note == "":
		return "", inputError("memory note is empty")
	case len(note) > MaxNoteBytes:
		return "", inputError("memory note is too long (%d bytes; the limit is %d): keep it to one terse sentence", len(note), MaxNoteBytes)
	}
	return note, nil
}

// InputError is a request the caller can fix: an empty or oversized note,
// or a `replaces` that names no entry or several.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputError(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// Entry is one remembered line.
type Entry struct {
	Scope Scope
	Path  string
	Line  int // 1-based
	Text  string
}

// Append adds note as a new "- <note>" line after a blank line and returns
// where it landed.
func (s *Store) Append(scope Scope, workspace, raw string) (Entry, error) {
	note, err := NormalizeNote(raw)
	if err != nil {
		return Entry{}, err
	}
	path, err := s.Path(scope, workspace)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	err = s.locked(func() error {
		before, err := readFile(path)
		if err != nil {
			return err
		}
		text := "\n- " + note + "\n"
		if before != "" && !strings.HasSuffix(before, "\n") {
			text = "\n" + text
		}
		e = Entry{Scope: scope, Path: path, Line: lineCount(before) + 2, Text: note}
		return appendFile(path, text)
	})
	return e, err
}

// lineCount counts lines the way an editor shows them: a final newline
// does not start another line.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

func readFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read memory file: %w", err)
	}
	return string(data), nil
}

func appendFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create memory directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open memory file: %w", err)
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write memory file %s: %w", path, err)
	}
	return nil
}

// writeAtomic replaces path through a synced sibling and a rename.
func writeAtomic(path, content string) error {
	tmp := path + ".pending"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write memory file %s: %w", path, err)
	}
	f, err := os.Open(tmp)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write memory file %s: %w", path, err)
	}
	return nil
}
