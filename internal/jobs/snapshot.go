package jobs

import (
	"sort"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
)

// TailChars is the length of the stdout/stderr tails of a snapshot.
const TailChars = 1200

// Snapshot is the /jobs view of a job (CONTRACT.md §12.1).
type Snapshot struct {
	ID             string `json:"id"`
	Command        string `json:"command"`
	Cwd            string `json:"cwd"`
	Status         Status `json:"status"`
	ExitCode       *int   `json:"exit_code,omitempty"`
	Signaled       bool   `json:"signaled,omitempty"` // ended by a signal rather than an exit
	ElapsedMS      int64  `json:"elapsed_ms"`
	StdoutTail     string `json:"stdout_tail"`
	StderrTail     string `json:"stderr_tail"`
	StdoutLen      int64  `json:"stdout_len"`
	StderrLen      int64  `json:"stderr_len"`
	StdinAvailable bool   `json:"stdin_available"`
	Stale          bool   `json:"stale"`
	Silent         bool   `json:"silent"`
	Background     bool   `json:"background"`
	LinkedTaskID   string `json:"linked_task_id,omitempty"`
	// Sandboxed: an OS sandbox confined the job; SandboxType names it
	// (landlock, bwrap, none).
	Sandboxed   bool   `json:"sandboxed"`
	SandboxType string `json:"sandbox_type"`
	// Denial explains a failure the sandbox most likely caused.
	Denial *sandbox.Denial `json:"sandbox_denied,omitempty"`
}

// Detail is a snapshot with the full retained output (/jobs show).
type Detail struct {
	Snapshot
	Stdout Text
	Stderr Text
}

func (j *Job) snapshotLocked(now time.Time, silentAfter time.Duration) Snapshot {
	s := Snapshot{
		ID: j.id, Command: j.command, Cwd: j.cwd, Status: j.status, ExitCode: j.exitCode,
		Signaled: j.signaled, ElapsedMS: j.elapsedLocked(now).Milliseconds(),
		StdoutTail: Tail(j.out.last(TailChars*4), TailChars), StderrTail: Tail(j.errs.last(TailChars*4), TailChars),
		StdoutLen: j.out.total, StderrLen: j.errs.total,
		StdinAvailable: j.status == Running && j.stdin != nil,
		Stale:          j.stale, Background: j.background, LinkedTaskID: j.linkedTask,
	}
	if j.stale {
		s.StderrTail = StaleNote
		if j.reapedNote != "" {
			s.StderrTail = j.reapedNote
		}
	}
	mech := j.sandbox.Mechanism()
	s.Sandboxed, s.SandboxType, s.Denial = mech != sandbox.None, string(mech), j.denial
	s.Silent = j.status == Running && now.Sub(j.lastOutput) >= silentAfter
	return s
}

func (m *Manager) snapshot(j *Job) Snapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.snapshotLocked(m.opts.Clock(), m.opts.SilentAfter)
}

// Snapshot returns the current view of one job.
func (m *Manager) Snapshot(id string) (Snapshot, error) {
	j, err := m.Get(id)
	if err != nil {
		return Snapshot{}, err
	}
	return m.snapshot(j), nil
}

// Show returns a job with its full retained output. Output beyond the
// retention windows is reported as omitted, never silently dropped.
func (m *Manager) Show(id string) (Detail, error) {
	j, err := m.Get(id)
	if err != nil {
		return Detail{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	d := Detail{Snapshot: j.snapshotLocked(m.opts.Clock(), m.opts.SilentAfter)}
	d.Stdout, d.Stderr = whole(j.out.from(0)), whole(j.errs.from(0))
	return d, nil
}

// whole renders a span without the result bound; only a retention hole is
// marked.
func whole(sp Span) Text {
	if sp.Hole == 0 {
		return Text{Content: validUTF8(append(sp.Front, sp.Back...)), Len: sp.Len()}
	}
	return Bound(sp)
}

// List returns every job in /jobs order: running, failed or timed out,
// killed, completed, stale; ties by id. Finished jobs older than the TTL are
// evicted first.
func (m *Manager) List() []Snapshot {
	m.evict()
	m.mu.Lock()
	all := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		all = append(all, j)
	}
	m.mu.Unlock()
	out := make([]Snapshot, 0, len(all))
	for _, j := range all {
		out = append(out, m.snapshot(j))
	}
	sort.Slice(out, func(a, b int) bool {
		ra, rb := rank(out[a]), rank(out[b])
		if ra != rb {
			return ra < rb
		}
		return out[a].ID < out[b].ID
	})
	return out
}

func rank(s Snapshot) int {
	if s.Stale {
		return 4
	}
	switch s.Status {
	case Running:
		return 0
	case Failed, TimedOut:
		return 1
	case Killed:
		return 2
	default:
		return 3
	}
}

// evict drops finished jobs older than the TTL, then the oldest finished
// jobs beyond the retention count. Stale records stay for the process
// lifetime: they are the only trace of what a restart cut off.
func (m *Manager) evict() {
	now := m.opts.Clock()
	m.mu.Lock()
	defer m.mu.Unlock()
	var finished []*Job
	for id, j := range m.jobs {
		j.mu.Lock()
		done, stale, ended := j.status != Running, j.stale, j.ended
		j.mu.Unlock()
		switch {
		case !done || stale:
		case now.Sub(ended) > m.opts.FinishedTTL:
			delete(m.jobs, id)
		default:
			finished = append(finished, j)
		}
	}
	if len(finished) <= maxFinished {
		return
	}
	sort.Slice(finished, func(a, b int) bool { return finished[a].ended.Before(finished[b].ended) })
	for _, j := range finished[:len(finished)-maxFinished] {
		delete(m.jobs, j.id)
	}
}
