package jobs

import (
	"context"
	"testing"
	"time"
)

// Every way a job can be stopped must take the whole process group with it:
// a forked background sleeper is gone by pid afterwards.
// CONTRACT.md §12.1: a timeout ends TimedOut and a cancel Killed, and either kills the whole process group.
func TestStoppedJobsLeaveNoOrphans(t *testing.T) {
	t.Parallel()
	const forker = "sleep 300 & echo $!; wait"
	tests := []struct {
		name   string
		cmd    string
		stop   func(m *Manager, j *Job, cancel context.CancelFunc)
		status Status
		spec   Spec
	}{
		{"timeout", forker, nil, TimedOut, Spec{Timeout: 300 * time.Millisecond}},
		{"cancel", forker, func(m *Manager, j *Job, _ context.CancelFunc) { _, _, _ = m.Cancel(j.ID()) }, Killed, Spec{}},
		{"context cancellation", forker, func(_ *Manager, _ *Job, cancel context.CancelFunc) { cancel() }, Killed, Spec{}},
		{"SIGTERM ignored, SIGKILL follows", "trap '' TERM; " + forker, func(m *Manager, j *Job, _ context.CancelFunc) { _, _, _ = m.Cancel(j.ID()) }, Killed, Spec{}},
		{"leader exits normally", "sleep 300 & echo $!", nil, Completed, Spec{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t, Options{})
			spec := tc.spec
			spec.Command, spec.Dir = tc.cmd, t.TempDir()
			j, err := m.Start(spec)
			if err != nil {
				t.Fatal(err)
			}
			pid := firstPID(t, m, j)
			if tc.stop != nil && !alive(pid) {
				t.Fatalf("child %d is not running before the stop", pid)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.stop != nil {
				go tc.stop(m, j, cancel)
			}
			m.Await(ctx, j)
			if got := j.Status(); got != tc.status {
				t.Fatalf("status %s, want %s", got, tc.status)
			}
			if !exitsWithin(pid, 5*time.Second) {
				t.Fatalf("background child %d outlived its job", pid)
			}
		})
	}
}
