package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// Runner executes one task: ctx is cancelled when the task is canceled or
// the store's runner is closed, and carries the task id (TaskIDFrom). It
// returns a short result summary, or an error that fails the task.
//
// Without an attached Runner tasks stay queued; the tool says so in every
// result that shows a queued task.
type Runner func(ctx context.Context, task TaskRecord) (summary string, err error)

// runnerState is guarded by Store.mu.
type runnerState struct {
	fn        Runner
	ctx       context.Context // the workers' lifetime
	wake      chan struct{}
	cancels   map[string]context.CancelFunc
	requested map[string]bool
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

// wakeOne signals one idle worker; a signal is never lost because a worker
// that claims a task re-signals while more are queued.
func (r *runnerState) wakeOne() {
	if r.wake == nil {
		return
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runnerState) requestCancel(id string) {
	if r.requested == nil {
		return
	}
	r.requested[id] = true
	if cancel := r.cancels[id]; cancel != nil {
		cancel()
	}
}

// AttachRunner starts workers goroutines (at least one) that run queued
// tasks in order with fn until ctx ends or Close is called. Only one runner
// may be attached.
func (s *Store) AttachRunner(ctx context.Context, fn Runner, workers int) error {
	return s.AttachRunnerAfter(ctx, fn, workers, nil)
}

// AttachRunnerAfter is AttachRunner whose workers claim nothing until start
// closes (nil: at once): the runner lock is taken now, so another process
// knows the queue is served, while every task stays queued — and stays
// queued if the runner stops first.
func (s *Store) AttachRunnerAfter(ctx context.Context, fn Runner, workers int, start <-chan struct{}) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run.fn != nil {
		return errors.New("task store: a runner is already attached")
	}
	lock, err := s.claimRunner()
	if err != nil {
		return err
	}
	s.runLock = lock
	ctx, stop := context.WithCancel(ctx)
	s.run.fn, s.run.ctx, s.run.stop = fn, ctx, stop
	s.run.wake = make(chan struct{}, 1)
	s.run.cancels, s.run.requested = map[string]context.CancelFunc{}, map[string]bool{}
	for range max(1, workers) {
		s.run.wg.Add(1)
		go s.work(ctx, start)
	}
	if len(s.queue) > 0 {
		s.run.wakeOne()
	}
	return nil
}

// HasRunner reports whether queued tasks will be executed: a runner is
// attached and its workers are still running.
func (s *Store) HasRunner() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run.fn != nil && s.run.ctx.Err() == nil
}

// Close stops the runner's workers and waits for them. Tasks they were
// running end failed; queued tasks stay queued for the next process.
func (s *Store) Close() {
	s.mu.Lock()
	stop := s.run.stop
	s.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	s.run.wg.Wait()
	s.mu.Lock()
	s.run = runnerState{}
	s.runLock.Unlock()
	s.runLock = nil
	s.mu.Unlock()
}

func (s *Store) work(ctx context.Context, start <-chan struct{}) {
	defer s.run.wg.Done()
	if start != nil {
		select {
		case <-start:
		case <-ctx.Done():
			return
		}
	}
	for {
		rec, taskCtx, ok := s.claim(ctx)
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-s.run.wake:
			}
			continue
		}
		summary, err := s.execute(taskCtx, rec)
		s.finish(ctx, rec.ID, summary, err)
	}
}

// execute calls the runner, turning a panic into an error.
func (s *Store) execute(ctx context.Context, rec TaskRecord) (summary string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("task runner panicked: %v", p)
		}
	}()
	return s.run.fn(ctx, rec)
}

// claim moves the oldest queued task to running.
func (s *Store) claim(ctx context.Context) (TaskRecord, context.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil || len(s.queue) == 0 {
		return TaskRecord{}, nil, false
	}
	id := s.queue[0]
	s.queue = s.queue[1:]
	rec := s.tasks[id]
	now := s.now()
	rec.Status, rec.StartedAt, rec.EndedAt, rec.DurationMS, rec.Error = Running, &now, nil, nil, ""
	rec.event(now, "running", "Task started", true)
	if err := s.persistQueue(); err != nil {
		slog.Error("task store: saving the queue failed", "task", id, "err", err)
	}
	if err := s.persist(rec); err != nil {
		slog.Error("task store: saving a started task failed", "task", id, "err", err)
	}
	taskCtx, cancel := context.WithCancel(WithTaskID(ctx, id))
	s.run.cancels[id] = cancel
	if len(s.queue) > 0 {
		s.run.wakeOne()
	}
	return rec.clone(), taskCtx, true
}

// finish records the runner's outcome.
func (s *Store) finish(runCtx context.Context, id, summary string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cancel := s.run.cancels[id]; cancel != nil {
		cancel()
	}
	delete(s.run.cancels, id)
	requested := s.run.requested[id]
	delete(s.run.requested, id)
	rec, now := s.tasks[id], s.now()
	switch {
	case requested:
		rec.end(now, Canceled)
		rec.event(now, "canceled", "Task canceled", true)
	case err != nil && runCtx.Err() != nil:
		rec.end(now, Failed)
		rec.Error = "Interrupted: the task runner stopped before the task finished"
		rec.event(now, "failed", rec.Error, true)
	case err != nil:
		rec.end(now, Failed)
		rec.Error = err.Error()
		rec.event(now, "failed", Summarize(rec.Error, 240), true)
	default:
		rec.end(now, Completed)
		rec.ResultSummary = summary
		rec.event(now, "completed", "Task completed", true)
	}
	if err := s.persist(rec); err != nil {
		slog.Error("task store: saving a finished task failed", "task", id, "err", err)
	}
}
