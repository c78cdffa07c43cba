package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// ReapedNote is the stderr tail of a stale job that was still running when
// a later start found it, and was stopped then.
const ReapedNote = "Stopped at start-up: the codewhale process that ran it exited while it was still running."

// owner identifies the process that writes a state file.
type owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"`
}

// record is what survives a restart of a running job: enough to list it as
// stale and to find its processes, nothing that could be mistaken for a
// live handle.
type record struct {
	ID           string `json:"id"`
	Command      string `json:"command"`
	Cwd          string `json:"cwd"`
	LinkedTaskID string `json:"linked_task_id,omitempty"`
	PID          int    `json:"pid,omitempty"`
	Start        uint64 `json:"start,omitempty"`
}

type stateFile struct {
	Owner owner    `json:"owner"`
	Jobs  []record `json:"jobs"`
}

// loadStale reads the state files of codewhale processes that are gone: their
// jobs are listed as stale (Killed, no stdin), the ones still running are
// stopped and reported, and the files are removed. Files of live processes
// (another session in this workspace) are left alone. A missing directory
// is an empty one.
func (m *Manager) loadStale() error {
	if m.opts.StateDir == "" {
		return nil
	}
	entries, err := os.ReadDir(m.opts.StateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("jobs: reading %s: %w", m.opts.StateDir, err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(m.opts.StateDir, e.Name())
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("jobs: reading %s: %w", path, err)
		}
		var st stateFile
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("jobs: %s is not a job state file (%v); delete it to start with no stale jobs", path, err)
		}
		if m.alive(st.Owner) {
			continue
		}
		for _, r := range st.Jobs {
			m.addStale(r)
		}
		_ = os.Remove(path)
	}
	return nil
}

// alive reports whether the owner of a state file still runs: the same pid
// with the same start time.
func (m *Manager) alive(o owner) bool {
	if o.PID <= 0 {
		return false
	}
	start, ok := startTime(o.PID)
	return ok && start == o.Start
}

// addStale lists r as a stale job, stopping its processes if they still run.
func (m *Manager) addStale(r record) {
	if r.ID == "" {
		return
	}
	now := m.opts.Clock()
	j := &Job{id: r.ID, command: r.Command, cwd: r.Cwd, linkedTask: r.LinkedTaskID, pid: r.PID, pidStart: r.Start,
		started: now, ended: now, clock: m.opts.Clock, status: Killed, stale: true, reported: true, background: true,
		done: make(chan struct{}), detached: make(chan struct{}), notify: make(chan struct{})}
	close(j.done)
	if r.PID > 0 && stopGroup(r.PID, r.Start) {
		j.reapedNote = ReapedNote
		m.leftovers = append(m.leftovers, fmt.Sprintf("%s (pid %d): %s", r.ID, r.PID, r.Command))
	}
	m.jobs[j.id] = j
}

// Leftovers describes the commands a previous codewhale process left
// running that this one stopped at start-up, for the user; "" when none.
func (m *Manager) Leftovers() string {
	if len(m.leftovers) == 0 {
		return ""
	}
	noun := "command"
	if len(m.leftovers) > 1 {
		noun = "commands"
	}
	return fmt.Sprintf("Stopped %d %s that a previous codewhale run left running: %s", len(m.leftovers), noun,
		strings.Join(m.leftovers, "; "))
}

// persist writes this process's running jobs to its state file atomically,
// and removes the file when none runs. Failures are not fatal to the job
// that triggered them: the file only serves a later start.
func (m *Manager) persist() {
	if m.statePath == "" {
		return
	}
	m.persistMu.Lock()
	defer m.persistMu.Unlock()
	st := stateFile{Owner: m.self, Jobs: m.runningRecords()}
	if len(st.Jobs) == 0 {
		if m.written != nil && os.Remove(m.statePath) == nil {
			m.written = nil
		}
		return // a start-up or exit with no running jobs writes nothing
	}
	raw, _ := json.MarshalIndent(st, "", "  ")
	raw = append(raw, '\n')
	if bytes.Equal(raw, m.written) {
		return
	}
	if err := os.MkdirAll(m.opts.StateDir, 0o700); err != nil {
		return
	}
	if writeAtomic(m.statePath, raw) == nil {
		m.written = raw
	}
}

func (m *Manager) runningRecords() []record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []record{}
	for _, j := range m.jobs {
		j.mu.Lock()
		if j.status == Running && !j.stale {
			out = append(out, record{ID: j.id, Command: j.command, Cwd: j.cwd, LinkedTaskID: j.linkedTask,
				PID: j.pid, Start: j.pidStart})
		}
		j.mu.Unlock()
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o600, false) }
