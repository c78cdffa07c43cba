package jobs

import (
	"context"
	"testing"
	"time"
)

// newTestManager returns a manager with a short kill grace that is closed
// when the test ends.
func newTestManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.KillGrace == 0 {
		opts.KillGrace = 200 * time.Millisecond
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/sh"
	}
	m, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// run starts spec in a fresh temp dir and waits for it to finish.
func run(t *testing.T, m *Manager, spec Spec) (*Job, Delta) {
	t.Helper()
	spec.Dir = t.TempDir()
	return runIn(t, m, spec)
}

// runIn starts spec as it is and waits for it to finish.
func runIn(t *testing.T, m *Manager, spec Spec) (*Job, Delta) {
	t.Helper()
	j, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	m.Await(context.Background(), j)
	d, err := m.Wait(context.Background(), j.ID(), 0, ModelReader)
	if err != nil {
		t.Fatal(err)
	}
	return j, d
}
