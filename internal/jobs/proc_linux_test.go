package jobs

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

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

// changed returns a channel closed at the next output or status change.
func (j *Job) changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.notify
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
