//go:build unix

package jobs

import (
	"os"
	"syscall"
)

// member is one process of a group, with its start time.
type member struct {
	pid   int
	start uint64
}

// stopGroup kills process group pgid if it is still the group whose leader
// started at leaderStart, and reports whether it killed anything. The leader
// alive must have that start time; with the leader gone, the group can only
// be the same one (a pid is not reused while a group of that id exists), and
// every member must have started no earlier than the leader did.
func stopGroup(pgid int, leaderStart uint64) bool {
	if pgid <= 1 || pgid == os.Getpid() {
		return false
	}
	ms := groupMembers(pgid)
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if m.pid == pgid && m.start != leaderStart || m.start < leaderStart {
			return false
		}
	}
	return syscall.Kill(-pgid, syscall.SIGKILL) == nil
}
