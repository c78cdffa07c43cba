package jobs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
)

// Status is a job's lifecycle state (CONTRACT.md §6.1).
type Status string

const (
	Running   Status = "Running"
	Completed Status = "Completed"
	Failed    Status = "Failed"
	Killed    Status = "Killed"
	TimedOut  Status = "TimedOut"
)

// Reader selects whose read position a delta advances: the model (Bash
// wait/interact) and the user (/jobs poll) each see every byte once.
type Reader int

const (
	ModelReader Reader = iota
	UserReader
)

// StaleNote is the stderr tail of a job that outlived a restart.
const StaleNote = "Process is no longer attached to this TUI session."

// Job is one tracked command. Its methods are safe for concurrent use.
type Job struct {
	id, command, cwd, linkedTask string
	started                      time.Time
	timeout                      time.Duration
	clock                        func() time.Time

	done     chan struct{} // closed when the job has finished
	detached chan struct{} // closed when a foreground wait is moved to /jobs
	detach   sync.Once

	mu         sync.Mutex
	status     Status
	exitCode   *int
	signaled   bool
	ended      time.Time
	lastOutput time.Time
	background bool
	stale      bool
	reported   bool   // its completion was delivered to the model
	killWith   Status // Killed or TimedOut once a kill was requested
	out, errs  stream
	cursors    [2][2]int64 // [reader][stdout, stderr]
	stdin      *os.File
	notify     chan struct{} // closed (and replaced) on every change
	proc       *process
	sandbox    *sandbox.Sandbox // what confined it (nil: nothing)
	denial     *sandbox.Denial  // why the sandbox most likely made it fail
	pid        int              // the leader, also the process group id on Unix
	pidStart   uint64           // the leader's start time, its identity across pid reuse
	reapedNote string           // set on a stale job whose processes were stopped at start-up
}

// ErrNotFound reports an unknown job id; its text is the contract's.
type ErrNotFound struct{ ID string }

func (e ErrNotFound) Error() string { return fmt.Sprintf("Task %s not found", e.ID) }

// ID is the job id (`shell_<8 hex>`).
func (j *Job) ID() string { return j.id }

// Command is the command line as shown to the user.
func (j *Job) Command() string { return j.command }

// Done is closed once the job has finished and its output is complete.
func (j *Job) Done() <-chan struct{} { return j.done }

// Detached is closed when the user moves a foreground wait to /jobs.
func (j *Job) Detached() <-chan struct{} { return j.detached }

// Timeout is the job's deadline duration (0: none).
func (j *Job) Timeout() time.Duration { return j.timeout }

// Status returns the current status.
func (j *Job) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status
}

// Changed returns a channel closed at the job's next output or status
// change.
func (j *Job) Changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.notify
}

// Tail returns copies of at most n trailing bytes of stdout and of stderr
// as retained now, for a live view; it advances no reader.
func (j *Job) Tail(n int) (stdout, stderr []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.out.last(n), j.errs.last(n)
}

// broadcast wakes every waiter; the caller holds j.mu.
func (j *Job) broadcast() {
	close(j.notify)
	j.notify = make(chan struct{})
}

func (j *Job) appendOutput(s *stream, p []byte) {
	j.mu.Lock()
	s.write(p)
	j.lastOutput = j.clock()
	j.broadcast()
	j.mu.Unlock()
}

// WriteStdin writes input to the job's stdin and closes it when close is
// set. A job without retained stdin fails with the contract's message. The
// write gives up after timeout (0: no limit) so a process that stopped
// reading cannot hang the caller.
func (j *Job) WriteStdin(input string, close bool, timeout time.Duration) error {
	j.mu.Lock()
	in := j.stdin
	if close {
		j.stdin = nil
	}
	j.mu.Unlock()
	if in == nil {
		if input == "" && close {
			return nil
		}
		return fmt.Errorf("stdin is not available for task %s", j.id)
	}
	if close {
		defer in.Close()
	}
	if input == "" {
		return nil
	}
	if timeout > 0 {
		_ = in.SetWriteDeadline(time.Now().Add(timeout))
		defer in.SetWriteDeadline(time.Time{})
	}
	if _, err := io.WriteString(in, input); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("writing stdin of task %s timed out: the process is not reading its input", j.id)
		}
		return fmt.Errorf("writing stdin of task %s: %w", j.id, err)
	}
	return nil
}

// closeStdinLocked drops the stdin pipe; the caller holds j.mu.
func (j *Job) closeStdinLocked() {
	if j.stdin != nil {
		j.stdin.Close()
		j.stdin = nil
	}
}

func (j *Job) elapsedLocked(now time.Time) time.Duration {
	if j.status != Running && !j.ended.IsZero() {
		return j.ended.Sub(j.started)
	}
	return now.Sub(j.started)
}

// Delta is the output of a job since a reader's previous read, with the
// job's state at the time of reading.
type Delta struct {
	Snapshot
	Elapsed  time.Duration
	Stdout   Text
	Stderr   Text
	Canceled bool // the caller's context ended while the job still ran
}

// takeDelta reads and advances r's position.
func (j *Job) takeDelta(r Reader, now time.Time, silentAfter time.Duration) Delta {
	j.mu.Lock()
	defer j.mu.Unlock()
	cur := &j.cursors[r]
	out, errs := j.out.from(cur[0]), j.errs.from(cur[1])
	cur[0], cur[1] = j.out.total, j.errs.total
	if r == ModelReader && j.status != Running {
		j.reported = true
	}
	return Delta{Snapshot: j.snapshotLocked(now, silentAfter), Elapsed: j.elapsedLocked(now),
		Stdout: Bound(out), Stderr: Bound(errs)}
}

// hasNewLocked reports output beyond r's position or a finished job.
func (j *Job) hasNewLocked(r Reader) bool {
	return j.status != Running || j.out.total > j.cursors[r][0] || j.errs.total > j.cursors[r][1]
}
