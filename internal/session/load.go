package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	TruncatedBytes int       // size of an unterminated final line (an interrupted write); 0 when none
	TruncatedLine  int       // that line's number
	Corrupt        []Dropped // lines that were not valid records, in file order
	BadHeader      bool      // the first line was not a readable header
}

// Dropped is one line loading dropped, and why.
type Dropped struct {
	Line int
	Why  string
}

// Any reports whether anything was dropped.
func (d Damage) Any() bool { return d.TruncatedBytes > 0 || len(d.Corrupt) > 0 || d.BadHeader }

// maxReported is how many dropped lines a report names one by one.
const maxReported = 20

// Report is what a host shows after loading a damaged session, or "": a
// first line saying how many messages were recovered and where the file as
// it was is kept (backup; "" before a writer repaired it), then one line
// per dropped or truncated record.
func (d Damage) Report(kept int, backup string) string {
	if !d.Any() {
		return ""
	}
	var rows []string
	if d.BadHeader {
		rows = append(rows, "line 1: an unreadable header (id and times were taken from the file name and later lines)")
	}
	for _, c := range d.Corrupt {
		rows = append(rows, fmt.Sprintf("line %d: %s", c.Line, c.Why))
	}
	if d.TruncatedBytes > 0 {
		rows = append(rows, fmt.Sprintf("line %d: a truncated final line of %d bytes (a write interrupted by a crash)",
			d.TruncatedLine, d.TruncatedBytes))
	}
	if len(rows) > maxReported {
		rows = append(rows[:maxReported], fmt.Sprintf("… and %d more", len(rows)-maxReported))
	}
	head := fmt.Sprintf("[session_recovery] Recovered %d message(s); dropped %d damaged line(s)", kept, d.count())
	if backup != "" {
		head += "; the file as it was is kept at " + backup
	}
	return head + ":\n  " + strings.Join(rows, "\n  ")
}

func (d Damage) count() int {
	n := len(d.Corrupt)
	if d.BadHeader {
		n++
	}
	if d.TruncatedBytes > 0 {
		n++
	}
	return n
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
		j.damage.TruncatedLine = bytes.Count(data, []byte{'\n'}) + 1
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
	switch {
	case err != nil:
		j.damage.Corrupt = append(j.damage.Corrupt, Dropped{Line: lineNo, Why: "not valid JSON (" + jsonProblem(err) + ")"})
	case !j.apply(&r):
		j.damage.Corrupt = append(j.damage.Corrupt, Dropped{Line: lineNo, Why: invalidRecord(r.Type)})
	}
	return nil
}

// jsonProblem is a JSON error without the Go type names it may carry.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return "a field of the wrong kind"
}

// invalidRecord says why a parsed record was refused.
func invalidRecord(typ string) string {
	switch typ {
	case lineMessage, lineCompaction, lineCut, lineMeta, lineSystem:
		return fmt.Sprintf("a %q record whose fields are not valid", typ)
	case "":
		return "a record with no type"
	}
	return fmt.Sprintf("a record of unknown type %q", termSafe(typ))
}

// termSafe keeps a type name read from a damaged file printable and short.
func termSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return s
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
