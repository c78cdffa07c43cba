package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// ErrNewerSchema is returned for a session written by a newer codewhale.
// The file is left exactly as it is.
var ErrNewerSchema = errors.New("session was written by a newer codewhale")

// NewerSchemaError says which file and version were refused.
type NewerSchemaError struct {
	Path    string
	Version int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("session %s uses schema_version %d but this codewhale reads up to %d; upgrade codewhale to open it (the file was left unchanged)",
		e.Path, e.Version, SchemaVersion)
}

func (e *NewerSchemaError) Unwrap() error { return ErrNewerSchema }

// Damage is what loading had to drop from a journal.
type Damage struct {
	TruncatedBytes int   // size of an unterminated final line (an interrupted write); 0 when none
	CorruptLines   []int // 1-based numbers of lines that were not valid records
	BadHeader      bool  // the first line was not a readable header
}

// Any reports whether anything was dropped.
func (d Damage) Any() bool { return d.TruncatedBytes > 0 || len(d.CorruptLines) > 0 || d.BadHeader }

// Line is the one line a host shows after loading a damaged session, or "".
func (d Damage) Line(kept int) string {
	if !d.Any() {
		return ""
	}
	var parts []string
	if d.BadHeader {
		parts = append(parts, "an unreadable header (id and times were taken from the file name and later lines)")
	}
	if n := len(d.CorruptLines); n > 0 {
		nums := make([]string, 0, min(n, 10))
		for _, l := range d.CorruptLines[:min(n, 10)] {
			nums = append(nums, strconv.Itoa(l))
		}
		more := ""
		if n > 10 {
			more = fmt.Sprintf(" and %d more", n-10)
		}
		parts = append(parts, fmt.Sprintf("%d corrupted line(s) (line %s%s)", n, strings.Join(nums, ", "), more))
	}
	if d.TruncatedBytes > 0 {
		parts = append(parts, fmt.Sprintf("a truncated final line of %d bytes (a write interrupted by a crash)", d.TruncatedBytes))
	}
	return fmt.Sprintf("[session_recovery] Recovered %d message(s); dropped %s.", kept, strings.Join(parts, ", "))
}

// journal is a parsed session file.
type journal struct {
	header   record
	system   string
	messages []provider.Message
	state    state
	earliest time.Time // of the line times, for a lost header's created_at
	updated  time.Time
	damage   Damage
	// compactions counts compaction records applied: the file holds more
	// messages than the history it loads to.
	compactions int
}

func (j *journal) meta() Meta { return metaOf(&j.header, j.state, len(j.messages), j.updated) }

// readJournal loads the session file at path. The only error besides I/O is
// a *NewerSchemaError; damage is recovered and reported in journal.damage.
func readJournal(path string) (*journal, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", path, err)
	}
	return parseJournal(path, data)
}

func parseJournal(path string, data []byte) (*journal, error) {
	j := &journal{}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		// Every write ends with a newline, so an unterminated tail is the
		// part of a write that a crash cut short.
		j.damage.TruncatedBytes = len(data) - (i + 1)
		data = data[:i+1]
	}
	lineNo := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i]
		data = data[i+1:]
		lineNo++
		if err := j.addLine(path, lineNo, line); err != nil {
			return nil, err
		}
	}
	if lineNo == 0 {
		j.damage.BadHeader = true
	}
	// The file name addresses the session, so it wins over the header (a
	// copied file is a separate session).
	j.header.ID = idFromPath(path)
	if j.damage.BadHeader {
		if j.header.CreatedAt.IsZero() {
			j.header.CreatedAt = j.earliest
		}
	}
	return j, nil
}

func (j *journal) addLine(path string, lineNo int, line []byte) error {
	var r record
	err := json.Unmarshal(line, &r)
	if lineNo == 1 {
		if err == nil && r.Type == lineHeader {
			if r.SchemaVersion > SchemaVersion {
				return &NewerSchemaError{Path: path, Version: r.SchemaVersion}
			}
			if r.SchemaVersion >= 1 && r.ID != "" {
				j.header = r
				if r.State != nil {
					j.state = r.State.clone()
				}
				j.touch(r.CreatedAt)
				return nil
			}
		}
		j.damage.BadHeader = true
		if err != nil || r.Type == lineHeader {
			return nil
		}
	}
	if err != nil || !j.apply(&r) {
		j.damage.CorruptLines = append(j.damage.CorruptLines, lineNo)
	}
	return nil
}

// apply folds one non-header record into j; false means it was invalid.
func (j *journal) apply(r *record) bool {
	switch r.Type {
	case lineMessage:
		if !validMessage(r.Message) {
			return false
		}
		j.messages = append(j.messages, *r.Message)
	case lineCompaction:
		if !validMessage(r.Message) || r.Replaced <= 0 || r.Replaced > len(j.messages) {
			return false
		}
		j.messages = append([]provider.Message{*r.Message}, j.messages[r.Replaced:]...)
		j.compactions++
	case lineCut:
		if r.N < 0 || r.N > len(j.messages) {
			return false
		}
		j.messages = j.messages[:r.N:r.N]
	case lineMeta:
		if r.State == nil {
			return false
		}
		j.state = *r.State
	case lineSystem:
		if r.Text == nil {
			return false
		}
		j.system = *r.Text
	default:
		return false
	}
	j.touch(r.At)
	return true
}

func (j *journal) touch(t time.Time) {
	if t.After(j.updated) {
		j.updated = t
	}
	if !t.IsZero() && (j.earliest.IsZero() || t.Before(j.earliest)) {
		j.earliest = t
	}
}

func idFromPath(path string) string { return strings.TrimSuffix(filepath.Base(path), journalExt) }
