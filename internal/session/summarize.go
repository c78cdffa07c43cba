package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// tailWindow is how much of a journal's end summarize reads: enough for the
// last meta line of any ordinary turn.
const tailWindow = 64 << 10

// summarize returns a journal's metadata from its header and its last lines,
// falling back to a full read when the tail holds no meta line or the header
// is damaged.
func summarize(path string, size int64) (Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, fmt.Errorf("opening session %s: %w", path, err)
	}
	defer f.Close()
	first, err := bufio.NewReaderSize(f, 4096).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return Meta{}, fmt.Errorf("reading session %s: %w", path, err)
	}
	var h record
	if json.Unmarshal(bytes.TrimSuffix(first, []byte("\n")), &h) != nil || h.Type != lineHeader || h.ID == "" || h.SchemaVersion < 1 {
		return fullSummary(path)
	}
	if h.SchemaVersion > SchemaVersion {
		h.ID = idFromPath(path)
		m := metaOf(&h, stateOf(&h), 0, h.CreatedAt)
		m.NewerSchema = h.SchemaVersion
		return m, nil
	}
	start := max(int64(len(first)), size-tailWindow)
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil && !errors.Is(err, io.EOF) {
		return Meta{}, fmt.Errorf("reading session %s: %w", path, err)
	}
	st, count, updated, ok := scanTail(tail, start == int64(len(first)))
	if !ok {
		return fullSummary(path)
	}
	if st == nil {
		s := stateOf(&h)
		st = &s
	}
	if updated.IsZero() {
		updated = h.CreatedAt
	}
	h.ID = idFromPath(path)
	return metaOf(&h, *st, count, updated), nil
}

// probe is the part of a record a summary needs; decoding into it skips
// message bodies without building them.
type probe struct {
	Type  string    `json:"type"`
	N     int       `json:"n"`
	At    time.Time `json:"at"`
	State *state    `json:"meta"`
}

func stateOf(h *record) state {
	if h.State == nil {
		return state{}
	}
	return h.State.clone()
}

// scanTail reads complete lines backwards for the last meta snapshot and the
// last message's count. whole says the tail starts right after the header; a
// tail that does not must hold a meta line and a message line, or ok is
// false.
func scanTail(tail []byte, whole bool) (st *state, count int, updated time.Time, ok bool) {
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		tail = tail[:i+1] // drop a truncated final line
	} else {
		tail = nil
	}
	if !whole {
		// The first line of the window may be cut; skip it.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		} else {
			tail = nil
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(tail, []byte("\n")), []byte("\n"))
	haveCount := false
	for i := len(lines) - 1; i >= 0 && (st == nil || !haveCount); i-- {
		var r probe
		if len(lines[i]) == 0 || json.Unmarshal(lines[i], &r) != nil {
			continue
		}
		if r.At.After(updated) {
			updated = r.At
		}
		switch {
		case r.Type == lineMeta && r.State != nil && st == nil:
			st = r.State
		case (r.Type == lineMessage || r.Type == lineCompaction || r.Type == lineCut) && !haveCount:
			count, haveCount = r.N, true
		}
	}
	return st, count, updated, whole || (st != nil && haveCount)
}

func fullSummary(path string) (Meta, error) {
	j, err := readJournal(path)
	var ns *NewerSchemaError
	if errors.As(err, &ns) {
		return Meta{ID: idFromPath(path), NewerSchema: ns.Version}, nil
	}
	if err != nil {
		return Meta{}, err
	}
	return j.meta(), nil
}
