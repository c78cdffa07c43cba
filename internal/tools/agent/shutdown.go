package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ExitedError is the status text of a child whose process went away before
// it finished.
const ExitedError = "the codewhale process that ran this sub-agent exited before it finished"

// Cancelled is one child a drain cancelled: the receipt hosts show.
type Cancelled struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Was    string `json:"status_before"` // queued or running
	Prompt string `json:"prompt"`        // the first line, cut to 120 characters
}

// Drain ends the manager's work for good: it waits up to wait for the
// children still live to finish (0 does not wait), then cancels the rest
// and waits, at most settle, for each to record its end. A child that does
// not settle is recorded as interrupted, so no saved record says "running"
// for a process about to exit. It returns the children it cancelled.
func (m *Manager) Drain(ctx context.Context, wait, settle time.Duration) []Cancelled {
	if wait > 0 {
		m.Wait(ctx, m.liveIDs(), "all", wait)
	}
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var out []Cancelled
	for _, s := range m.List() {
		if terminal(s.Status) {
			continue
		}
		out = append(out, Cancelled{ID: s.ID, Role: s.Role, Was: s.Status, Prompt: truncateRunes(firstLine(s.Prompt), 120)})
	}
	m.CancelAll()
	if ids := m.liveIDs(); len(ids) > 0 {
		m.Wait(context.Background(), ids, "all", settle)
	}
	for _, id := range m.liveIDs() {
		if c, err := m.Get(id); err == nil {
			c.setStatus(StatusInterrupted, func() { c.errText = ExitedError })
			c.saveState()
		}
	}
	m.waitForWrites()
	return out
}

// waitForWrites returns once no child is recording its end: a record being
// saved holds m.writes for reading.
func (m *Manager) waitForWrites() {
	m.writes.Lock()
	defer m.writes.Unlock()
}

func (m *Manager) liveIDs() []string {
	var ids []string
	for _, s := range m.List() {
		if !terminal(s.Status) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ReconcileDir marks saved records that say queued or running, but whose
// process is gone, as interrupted (a crash, a kill -9, an older build that
// exited without settling them). A record of a live process is left alone.
// It returns the ids it changed.
func ReconcileDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading sub-agent records in %s: %w", dir, err)
	}
	var fixed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		id := strings.TrimSuffix(strings.TrimSuffix(name, transcriptExt), ".json")
		if !e.Type().IsRegular() || id == name {
			continue
		}
		ok, err := reconcileFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			fixed = append(fixed, id)
		}
	}
	return fixed, errors.Join(errs...)
}

func reconcileFile(path string) (bool, error) {
	if strings.HasSuffix(path, transcriptExt) {
		return reconcileJournal(path)
	}
	return reconcileLegacy(path)
}

// processAlive reports whether pid names a running process (0: unknown,
// treated as gone). Another process's pid answers EPERM, which is alive.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
