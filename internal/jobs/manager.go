// Package jobs is the process-local job manager behind Bash, Run, task
// gates, /jobs and `codewhale exec`: it starts commands under the session's
// sandbox, each with everything it forks in one process group (Unix) or Job
// Object (Windows) so a kill reaches the whole tree, captures their output
// within fixed bounds, lets callers wait, write stdin and cancel, and
// reports each finished background job to the model once.
//
// Jobs die with the agent: on Linux the leader has Pdeathsig, a watchdog
// process stops the groups of an agent that died, a Job Object closes with
// it on Windows, and a later start stops (after checking each process's
// start time) what a crashed run left and lists it as stale. Jobs are never
// reattached across restarts.
package jobs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codewhale/codewhale/internal/binpath"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// Defaults of Options.
const (
	DefaultKillGrace   = 2 * time.Second
	DefaultSilentAfter = 60 * time.Second
	DefaultFinishedTTL = time.Hour
	maxFinished        = 128
)

// Options configures a Manager. The zero value works: no persistence, no
// sandbox, the user's $SHELL (else /bin/sh, cmd.exe on Windows), default
// timings.
type Options struct {
	// StateDir holds one JSON file per running codewhale process with its
	// running jobs' ids, commands, working directories and process
	// identities. At start-up the files of processes that are gone are read:
	// their jobs are listed as stale, and any still running are stopped
	// (after checking they are the same processes) and reported.
	StateDir string
	// Shell runs commands as `<Shell> -c <command>`; default $SHELL, else
	// /bin/sh. A bare name is looked up on PATH past the entries inside
	// Workspace (internal/binpath).
	Shell string
	// Workspace is the workspace root, whose PATH directories (a .venv/bin,
	// ./bin) never supply the shell: a File patch can put a program there.
	Workspace string
	// Env is added to every job's environment (KEY=VALUE), after the
	// sandbox's scrubbed copy of the agent's environment.
	Env []string
	// Sandbox confines every job whose Spec names none; nil runs them
	// unconfined.
	Sandbox *sandbox.Sandbox
	// Watchdog is the executable (codewhale itself) started once, at the
	// first job, as `<Watchdog> __watchdog`: if this process dies without
	// stopping its jobs, the watchdog does. "" starts none.
	Watchdog string
	// KillGrace is how long a SIGTERMed group has before SIGKILL.
	KillGrace time.Duration
	// SilentAfter marks a running job silent after this long without output.
	SilentAfter time.Duration
	// FinishedTTL is how long a finished job stays listed.
	FinishedTTL time.Duration
	// Clock returns the current time (tests); default time.Now.
	Clock func() time.Time
}

// Spec describes a job to start.
type Spec struct {
	Command      string   // shown in /jobs; run with the shell unless Program is set
	Program      string   // when set, run Program with Args directly, no shell
	Args         []string //
	Dir          string   // working directory (already boundary-checked)
	Env          []string // extra KEY=VALUE entries
	Stdin        string   // written to stdin at start
	KeepStdin    bool     // keep stdin open for later writes (else it is closed after Stdin)
	Combined     bool     // one merged stdout+stderr stream
	Timeout      time.Duration
	Background   bool
	LinkedTaskID string
	// Sandbox confines this job instead of the manager's (read-only for
	// Plan, danger-full-access for a run the user approved outside it).
	Sandbox *sandbox.Sandbox
	// Stdout and Stderr, when set, receive every byte of the stream as it
	// arrives (from the reader goroutine), for callers that parse all of it.
	Stdout, Stderr io.Writer
}

// Manager tracks the jobs of one process. Its methods are safe for
// concurrent use.
type Manager struct {
	opts  Options
	shell func() string // resolved on the first job: most sessions start none

	mu      sync.Mutex
	jobs    map[string]*Job
	changed chan struct{} // closed (and replaced) when a job starts or finishes

	self      owner  // this process, as recorded in its state file
	statePath string // this manager's state file ("" without StateDir)
	leftovers []string

	persistMu sync.Mutex // serialises state-file writes so the last one is current
	written   []byte     // the state file's content as last written; nil when absent (under persistMu)

	watchOnce sync.Once
	watch     *watchdog // nil until the first job, or when none could start
}

// NewManager returns a manager; the state files of codewhale processes that
// are gone are loaded as stale jobs, and what of them still ran is stopped.
func NewManager(opts Options) (*Manager, error) {
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.SilentAfter <= 0 {
		opts.SilentAfter = DefaultSilentAfter
	}
	if opts.FinishedTTL <= 0 {
		opts.FinishedTTL = DefaultFinishedTTL
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	m := &Manager{opts: opts, shell: sync.OnceValue(func() string { return resolveShell(opts.Shell, opts.Workspace) }),
		jobs: map[string]*Job{}, changed: make(chan struct{})}
	m.self.PID = os.Getpid()
	m.self.Start, _ = startTime(m.self.PID)
	if opts.StateDir != "" {
		m.statePath = filepath.Join(opts.StateDir, fmt.Sprintf("%d-%s.json", m.self.PID, uuid.NewString()[:8]))
	}
	if err := m.loadStale(); err != nil {
		return nil, err
	}
	return m, nil
}

func resolveShell(configured, workspace string) string {
	for _, s := range []string{configured, os.Getenv("SHELL")} {
		if s == "" {
			continue
		}
		if path, err := binpath.LookPath(s, workspace); err == nil {
			return path
		}
	}
	return defaultShell
}

// Shell is the shell commands run with.
func (m *Manager) Shell() string { return m.shell() }

// Start launches spec as a new tracked job.
func (m *Manager) Start(spec Spec) (*Job, error) {
	if spec.Command == "" && spec.Program == "" {
		return nil, fmt.Errorf("jobs: empty command")
	}
	display := spec.Command
	if display == "" {
		display = spec.Program
	}
	now := m.opts.Clock()
	j := &Job{
		command: display, cwd: spec.Dir, linkedTask: spec.LinkedTaskID, started: now, lastOutput: now,
		timeout: spec.Timeout, background: spec.Background, status: Running, clock: m.opts.Clock,
		done: make(chan struct{}), detached: make(chan struct{}), notify: make(chan struct{}),
	}
	m.mu.Lock()
	j.id = m.newIDLocked()
	m.jobs[j.id] = j
	m.mu.Unlock()
	defer m.notifyChanged()

	sb := spec.Sandbox
	if sb == nil {
		sb = m.opts.Sandbox
	}
	j.sandbox = sb
	m.watchdog() // up before the job runs, so the job is registered the moment it starts
	l := launch{shell: m.shell(), env: m.opts.Env, sandbox: sb, grace: m.opts.KillGrace, finish: m.finish, started: m.started}
	if err := spawn(j, spec, l); err != nil {
		m.mu.Lock()
		delete(m.jobs, j.id)
		m.mu.Unlock()
		return nil, fmt.Errorf("starting %q: %w", display, err)
	}
	if spec.Timeout > 0 {
		timer := time.AfterFunc(spec.Timeout, func() { m.kill(j, TimedOut) })
		go func() { <-j.done; timer.Stop() }()
	}
	m.persist()
	return j, nil
}

func (m *Manager) newIDLocked() string {
	for {
		id := "shell_" + uuid.NewString()[:8]
		if _, taken := m.jobs[id]; !taken {
			return id
		}
	}
}

// finish records how the job ended; called once by the reaper after the
// output is complete.
func (m *Manager) finish(j *Job, run *sandbox.Process) {
	now := m.opts.Clock()
	j.mu.Lock()
	j.ended = now
	switch {
	case j.killWith != "":
		j.status = j.killWith
	case run.Exited() && run.ExitCode() == 0:
		j.status = Completed
	default:
		j.status = Failed
	}
	if run.Exited() {
		code := run.ExitCode()
		j.exitCode = &code
	} else {
		j.signaled = true
	}
	if !j.background {
		j.reported = true // the foreground caller delivers the result itself
	}
	if j.status == Failed && j.sandbox != nil {
		j.denial = j.sandbox.Explain(string(j.errs.last(explainBytes))+"\n"+string(j.out.last(explainBytes)), j.cwd)
	}
	j.closeStdinLocked()
	j.broadcast()
	pid := j.pid
	j.mu.Unlock()
	close(j.done)
	if m.watch != nil { // set before this job started (watchdog, via started)
		m.watch.forget(pid)
	}
	m.evict() // keeps memory bounded even when nobody lists jobs
	m.persist()
	m.notifyChanged()
}

// explainBytes is how much of each stream a failed job's sandbox
// explanation reads.
const explainBytes = 32 << 10

// started records a job's process identity once it runs: in the state file
// (so a later start can stop it if this process dies first) and with the
// watchdog (which stops it when this process dies).
func (m *Manager) started(j *Job, p *process) {
	pid := p.cmd.Process.Pid
	start, _ := startTime(pid)
	j.mu.Lock()
	j.pid, j.pidStart = pid, start
	j.mu.Unlock()
	if w := m.watchdog(); w != nil {
		w.watch(pid, start)
	}
}

// watchdog starts the watchdog on first use.
func (m *Manager) watchdog() *watchdog {
	m.watchOnce.Do(func() {
		if m.opts.Watchdog != "" {
			m.watch = startWatchdog(m.opts.Watchdog)
		}
	})
	return m.watch
}

// Changed returns a channel that is closed the next time a job starts or
// finishes, so a UI can refresh without polling.
func (m *Manager) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

func (m *Manager) notifyChanged() {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// kill requests termination of a running job, recording why.
func (m *Manager) kill(j *Job, why Status) bool {
	j.mu.Lock()
	if j.status != Running || j.killWith != "" || j.proc == nil {
		j.mu.Unlock()
		return false
	}
	j.killWith = why
	j.closeStdinLocked()
	p := j.proc
	j.mu.Unlock()
	p.terminate()
	return true
}

func (j *Job) killRequested() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.killWith != ""
}

// Get returns the job with id.
func (m *Manager) Get(id string) (*Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if j, ok := m.jobs[id]; ok {
		return j, nil
	}
	return nil, ErrNotFound{ID: id}
}

// running returns the running jobs, ordered by id.
func (m *Manager) running() []*Job {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Job
	for _, j := range m.jobs {
		if j.Status() == Running {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out
}
