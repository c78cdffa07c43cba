package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/provider"
)

// A child's transcript file, <TranscriptDir>/<id>.jsonl, is a journal: one
// JSON record per line, only ever appended to, so saving a message costs
// that message and a crash mid-write loses at most the torn last line,
// which reading skips. The child's state (status, pid for ReconcileDir) is a
// record of its own, written when it changes; the last one stands. Files of
// older builds (<id>.json, one document rewritten on each message) are still
// read and reconciled.
const transcriptExt = ".jsonl"

// transcriptRecord is one line of a transcript file: a state, a reset or a
// message.
type transcriptRecord struct {
	SchemaVersion int       `json:"schema_version,omitempty"`
	PID           int       `json:"pid,omitempty"` // the process running the child, for ReconcileDir
	Agent         *Snapshot `json:"agent,omitempty"`
	// Reset: the history was replaced (a compaction); the messages before
	// this line are void.
	Reset   bool              `json:"reset,omitempty"`
	Message *provider.Message `json:"message,omitempty"`
}

// legacyTranscript is the saved form of older builds.
type legacyTranscript struct {
	SchemaVersion int                `json:"schema_version"`
	PID           int                `json:"pid,omitempty"`
	Agent         Snapshot           `json:"agent"`
	Messages      []provider.Message `json:"messages"`
}

// savedTranscript is what a transcript file holds.
type savedTranscript struct {
	pid      int
	agent    *Snapshot
	messages []provider.Message
}

// appendRecords appends recs to path as lines, after a newline when a torn
// line (a crash mid-write) ends the file, so the new records stay readable.
func appendRecords(path string, recs ...transcriptRecord) error {
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding a sub-agent record: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the sub-agent records directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening sub-agent record %s: %w", path, err)
	}
	defer f.Close()
	out := buf.Bytes()
	if torn, err := endsTorn(f); err != nil {
		return fmt.Errorf("reading sub-agent record %s: %w", path, err)
	} else if torn {
		out = append([]byte{'\n'}, out...)
	}
	if _, err := f.Write(out); err != nil {
		return fmt.Errorf("appending to sub-agent record %s: %w", path, err)
	}
	return nil
}

// endsTorn reports whether f is non-empty and does not end in a newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// readTranscript reads the saved transcript of id in dir: the journal, or
// an older build's document.
func readTranscript(dir, id string) (savedTranscript, error) {
	path := filepath.Join(dir, id+transcriptExt)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return readLegacy(filepath.Join(dir, id+".json"), id)
	}
	if err != nil {
		return savedTranscript{}, fmt.Errorf("no saved transcript for %s: %w", id, err)
	}
	return parseTranscript(data), nil
}

// parseTranscript folds a journal's records; a line that does not parse (a
// torn last line) is skipped.
func parseTranscript(data []byte) savedTranscript {
	var out savedTranscript
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		var r transcriptRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Agent != nil:
			out.agent, out.pid = r.Agent, r.PID
		case r.Reset:
			out.messages = nil
		case r.Message != nil:
			out.messages = append(out.messages, *r.Message)
		}
	}
	return out
}

func readLegacy(path, id string) (savedTranscript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return savedTranscript{}, fmt.Errorf("no saved transcript for %s: %w", id, err)
	}
	var f legacyTranscript
	if err := json.Unmarshal(data, &f); err != nil {
		return savedTranscript{}, fmt.Errorf("transcript of %s is unreadable: %w", id, err)
	}
	return savedTranscript{pid: f.PID, agent: &f.Agent, messages: f.Messages}, nil
}

// reconcileLegacy marks an older build's record of a gone process as
// interrupted, rewriting the document as that build did.
func reconcileLegacy(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var f legacyTranscript
	if json.Unmarshal(data, &f) != nil || !markExited(f.PID, &f.Agent) {
		return false, nil
	}
	out, err := json.Marshal(f)
	if err != nil {
		return false, err
	}
	if err := atomicfile.Write(path, out, 0o600, false); err != nil {
		return false, fmt.Errorf("updating sub-agent record %s: %w", path, err)
	}
	return true, nil
}

// reconcileJournal appends an interrupted state to a journal whose last
// state is live but whose process is gone.
func reconcileJournal(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	f := parseTranscript(data)
	if f.agent == nil || !markExited(f.pid, f.agent) {
		return false, nil
	}
	return true, appendRecords(path, transcriptRecord{SchemaVersion: 1, Agent: f.agent})
}

// markExited records a live state of a gone process as interrupted; false
// when the state is terminal or its process still runs.
func markExited(pid int, a *Snapshot) bool {
	if terminal(a.Status) || processAlive(pid) {
		return false
	}
	a.Status, a.Terminal, a.Error = StatusInterrupted, true, ExitedError
	if a.Ended.IsZero() {
		a.Ended = time.Now().UTC()
	}
	return true
}

func (c *Child) transcriptPath() string {
	return filepath.Join(c.m.opts.TranscriptDir, c.ID+transcriptExt)
}

// saveState appends the child's current state to its transcript file.
func (c *Child) saveState() {
	if c.m.opts.TranscriptDir == "" {
		return
	}
	snap := c.Snapshot()
	c.fileMu.Lock()
	defer c.fileMu.Unlock()
	_ = appendRecords(c.transcriptPath(), transcriptRecord{SchemaVersion: 1, PID: os.Getpid(), Agent: &snap})
}

// addHistory applies a change of the child's history (p.Messages from
// index p.Start on) and appends it to the transcript file: the new messages
// alone, or, when earlier ones were replaced, a reset and the whole history.
func (c *Child) addHistory(p Progress) {
	c.mu.Lock()
	reset := p.Start < len(c.messages)
	if reset {
		c.messages = append(c.messages[:p.Start:p.Start], p.Messages...)
	} else {
		c.messages = append(c.messages, p.Messages...)
	}
	c.histGen++
	c.acts++
	write := p.Messages
	if reset {
		write = append([]provider.Message(nil), c.messages...)
	}
	c.mu.Unlock()
	if c.m.opts.TranscriptDir == "" {
		return
	}
	recs := make([]transcriptRecord, 0, len(write)+1)
	if reset {
		recs = append(recs, transcriptRecord{Reset: true})
	}
	for i := range write {
		recs = append(recs, transcriptRecord{Message: &write[i]})
	}
	c.fileMu.Lock()
	defer c.fileMu.Unlock()
	_ = appendRecords(c.transcriptPath(), recs...)
}
