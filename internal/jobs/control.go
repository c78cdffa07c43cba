package jobs

import (
	"context"
	"fmt"
	"time"
)

// MaxWait caps how long one wait or interact may block.
const MaxWait = 600 * time.Second

// Await blocks until j finishes, ctx ends or the user moves the wait to
// /jobs. When ctx ends first the job is cancelled and awaited, so the
// caller always sees a finished job unless moved is true.
func (m *Manager) Await(ctx context.Context, j *Job) (moved bool) {
	select {
	case <-j.done:
		return false
	case <-j.detached:
		return true
	case <-ctx.Done():
		m.kill(j, Killed)
		<-j.done
		return false
	}
}

// AwaitEnd blocks until j finishes, waiting on past a move to /jobs: for
// a caller whose answer needs the job's verdict (a verification gate).
// When ctx ends first the job is cancelled.
func (m *Manager) AwaitEnd(ctx context.Context, j *Job) {
	if m.Await(ctx, j) {
		select {
		case <-j.done:
		case <-ctx.Done():
			_, _, _ = m.Cancel(j.ID())
		}
	}
}

// MoveToBackground turns a running foreground job into a background one: its
// foreground wait returns at once and its completion is reported later.
func (m *Manager) MoveToBackground(id string) error {
	j, err := m.Get(id)
	if err != nil {
		return err
	}
	j.mu.Lock()
	if j.status != Running {
		j.mu.Unlock()
		return fmt.Errorf("task %s is not running", id)
	}
	j.background = true
	j.reported = false
	j.mu.Unlock()
	j.detach.Do(func() { close(j.detached) })
	return nil
}

// Wait blocks until the job leaves Running, timeout passes (0: do not
// block; capped at MaxWait) or ctx ends, then returns the output r has not
// read yet. It is signalled by the job, never by polling.
func (m *Manager) Wait(ctx context.Context, id string, timeout time.Duration, r Reader) (Delta, error) {
	j, err := m.Get(id)
	if err != nil {
		return Delta{}, err
	}
	canceled := false
	if timeout > 0 {
		timer := time.NewTimer(min(timeout, MaxWait))
		defer timer.Stop()
		select {
		case <-j.done:
		case <-timer.C:
		case <-ctx.Done():
			canceled = true
		}
	}
	d := j.takeDelta(r, m.opts.Clock(), m.opts.SilentAfter)
	d.Canceled = canceled && d.Status == Running
	return d, nil
}

// Interact writes input to the job's stdin (closing it when closeStdin),
// then waits until new output arrives, the job finishes, timeout passes or
// ctx ends, and returns r's unread output.
func (m *Manager) Interact(ctx context.Context, id, input string, closeStdin bool, timeout time.Duration, r Reader) (Delta, error) {
	j, err := m.Get(id)
	if err != nil {
		return Delta{}, err
	}
	timeout = min(max(timeout, 0), MaxWait)
	if err := j.WriteStdin(input, closeStdin, max(timeout, time.Second)); err != nil {
		return Delta{}, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	canceled := false
	for !canceled {
		j.mu.Lock()
		ready, ch := j.hasNewLocked(r), j.notify
		j.mu.Unlock()
		if ready {
			break
		}
		select {
		case <-ch:
		case <-timer.C:
			return m.delta(j, r, false), nil
		case <-ctx.Done():
			canceled = true
		}
	}
	return m.delta(j, r, canceled), nil
}

func (m *Manager) delta(j *Job, r Reader, canceled bool) Delta {
	d := j.takeDelta(r, m.opts.Clock(), m.opts.SilentAfter)
	d.Canceled = canceled && d.Status == Running
	return d
}

// Cancel kills a running job and waits for it to finish. It reports whether
// the job was running.
func (m *Manager) Cancel(id string) (Snapshot, bool, error) {
	j, err := m.Get(id)
	if err != nil {
		return Snapshot{}, false, err
	}
	killed := m.kill(j, Killed)
	if killed {
		<-j.done
	}
	return m.snapshot(j), killed, nil
}

// CancelAll kills every running job and returns their ids, sorted.
func (m *Manager) CancelAll() []string {
	var ids []string
	var killed []*Job
	for _, j := range m.running() {
		if m.kill(j, Killed) {
			ids = append(ids, j.id)
			killed = append(killed, j)
		}
	}
	for _, j := range killed {
		<-j.done
	}
	return ids
}

// Close kills every running job (the session is ending), removes this
// process's state file and lets the watchdog go.
func (m *Manager) Close() {
	m.CancelAll()
	m.persist()
	m.watchOnce.Do(func() {}) // no watchdog starts after this
	if m.watch != nil {
		m.watch.close()
	}
}
