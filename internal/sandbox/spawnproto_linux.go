package sandbox

import (
	"fmt"
	"syscall"
)

// What passes between the agent and a spawner (spawner_linux.go): the
// spawner's setup, a start request and its replies, and the error a
// spawned command's unsuccessful end reads as.

// spawnerSetup is the spawner's command-line argument.
type spawnerSetup struct {
	RO      []string `json:"ro,omitempty"`
	RWInRO  []string `json:"rw_in_ro,omitempty"`
	Outside string   `json:"outside"`
}

// fileID identifies a bound path: the agent's view of it, which the
// spawner's must match (a bind mount shows its source's device and inode).
type fileID struct {
	Dev, Ino uint64
	ReadOnly bool `json:",omitempty"`
}

// spawnRequest asks the spawner to start a command. The descriptors sent
// with it are the request itself (a memfd), then stdin, stdout, stderr and
// the extra files for which Files is true, in that order.
type spawnRequest struct {
	ID              uint64
	Path            string
	Args, Env       []string
	Dir             string
	Policy          Policy
	Setsid, Setpgid bool `json:",omitempty"`
	Pgid            int  `json:",omitempty"`
	Files           []bool
	// RW, RO and RWInRO are the layout as resolved here for this command:
	// the spawner serves it only if RO and RWInRO are what it bound.
	RW, RO, RWInRO []string
	Bound          []fileID
}

// spawnReply answers a request: started (Pid), not started (Err), or
// reaped (Exited, Status). ID 0 is the spawner's readiness. (No "received"
// message: each costs a hand-off; a spawner that died after a request was
// sent cannot say whether it started the command, so that start is an
// error, never retried: the command may have run in part.)
type spawnReply struct {
	ID     uint64
	Pid    int    `json:",omitempty"`
	Err    string `json:",omitempty"`
	Errno  int    `json:",omitempty"` // the exec's errno, when that failed
	Stale  bool   `json:",omitempty"`
	Exited bool   `json:",omitempty"`
	Status uint32 `json:",omitempty"`
	// died is set here when the spawner went away instead of answering.
	died bool
}

// ExitError is the unsuccessful end of a command the spawner ran, as
// exec.ExitError is for one this process started.
type ExitError struct{ Status syscall.WaitStatus }

// Error reads as os.ProcessState's String does.
func (e *ExitError) Error() string {
	ws := e.Status
	switch {
	case ws.Exited():
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	case ws.Signaled() && ws.CoreDump():
		return "signal: " + ws.Signal().String() + " (core dumped)"
	case ws.Signaled():
		return "signal: " + ws.Signal().String()
	}
	return fmt.Sprintf("wait status %#x", uint32(ws))
}

// ExitCode is the exit status, or -1 when a signal ended the command.
func (e *ExitError) ExitCode() int { return e.Status.ExitStatus() }
