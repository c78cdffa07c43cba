package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/codewhale/codewhale/internal/atomicfile"
	"io/fs"
	"os"
	"sort"
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
		return nil
	}
	if err != nil {
		return fmt.Errorf("jobs: reading %s: %w", m.opts.StatePath, err)
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
	_ = writeAtomic(m.opts.StatePath, append(raw, '\n'))
}

func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o600, false) }
