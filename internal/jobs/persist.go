package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// record is what survives a restart of a running job: enough to list it as
// stale, nothing that could be mistaken for a live handle.
type record struct {
	ID           string `json:"id"`
	Command      string `json:"command"`
	Cwd          string `json:"cwd"`
	LinkedTaskID string `json:"linked_task_id,omitempty"`
}

type stateFile struct {
	Jobs []record `json:"jobs"`
}

// loadStale lists the previous process's running jobs as stale (Killed, no
// stdin). A missing file is an empty one.
func (m *Manager) loadStale() error {
	if m.opts.StatePath == "" {
		return nil
	}
	raw, err := os.ReadFile(m.opts.StatePath)
	if errors.Is(err, fs.ErrNotExist) {
		m.written = emptyState // nothing to write until a job runs
		return nil
	}
	if err != nil {
		return fmt.Errorf("jobs: reading %s: %w", m.opts.StatePath, err)
	}
	if bytes.Equal(raw, emptyState) { // the usual case: the last run ended cleanly
		m.written = raw
		return nil
	}
	var st stateFile
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("jobs: %s is not a job state file (%v); delete it to start with no stale jobs", m.opts.StatePath, err)
	}
	now := m.opts.Clock()
	for _, r := range st.Jobs {
		if r.ID == "" {
			continue
		}
		j := &Job{id: r.ID, command: r.Command, cwd: r.Cwd, linkedTask: r.LinkedTaskID,
			started: now, ended: now, clock: m.opts.Clock, status: Killed, stale: true, reported: true, background: true,
			done: make(chan struct{}), detached: make(chan struct{}), notify: make(chan struct{})}
		close(j.done)
		m.jobs[j.id] = j
	}
	m.written = raw
	m.persist()
	return nil
}

// persist writes the running jobs to the state file atomically. Failures are
// not fatal to the job that triggered them: the file only serves stale
// listings after a restart.
func (m *Manager) persist() {
	if m.opts.StatePath == "" {
		return
	}
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	m.mu.Lock()
	st := stateFile{Jobs: []record{}}
	for _, j := range m.jobs {
		j.mu.Lock()
		if j.status == Running && !j.stale {
			st.Jobs = append(st.Jobs, record{ID: j.id, Command: j.command, Cwd: j.cwd, LinkedTaskID: j.linkedTask})
		}
		j.mu.Unlock()
	}
	m.mu.Unlock()
	sort.Slice(st.Jobs, func(a, b int) bool { return st.Jobs[a].ID < st.Jobs[b].ID })
	raw, _ := json.MarshalIndent(st, "", "  ")
	raw = append(raw, '\n')
	if bytes.Equal(raw, m.written) {
		return // a start-up or exit with no running jobs writes nothing
	}
	if writeAtomic(m.opts.StatePath, raw) == nil {
		m.written = raw
	}
}

// emptyState is what persist writes with no running jobs; a missing file
// means the same.
var emptyState = []byte("{\n  \"jobs\": []\n}\n")

func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o600, false) }
