package jobs

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// run starts spec and waits for it to finish.
func run(t *testing.T, m *Manager, spec Spec) (*Job, Delta) {
	t.Helper()
	spec.Dir = t.TempDir()
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

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// exitsWithin reports whether pid has exited or exits within d. A killed
// process has closed its pipes before it is fully gone, so the check waits
// on a pidfd (readable at exit) rather than sampling once.
func exitsWithin(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(d.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// firstPID reads the pid a command printed as its first stdout line.
func firstPID(t *testing.T, m *Manager, j *Job) int {
	t.Helper()
	for {
		ch := j.changed()
		snap, _ := m.Snapshot(j.ID())
		line, _, found := strings.Cut(snap.StdoutTail, "\n")
		if found {
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("first line %q is not a pid", line)
			}
			return pid
		}
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("no pid printed")
		}
	}
}

// fakeClock is a settable clock for silence and eviction tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
