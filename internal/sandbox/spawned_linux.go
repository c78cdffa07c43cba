package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// The spawner's side (see spawner_linux.go): codewhale's helper, started
// in new user and mount namespaces with the socket as fd 3.

// spawnerFD is the spawner's end of the socketpair (cmd.ExtraFiles[0]).
const spawnerFD = 3

// spawnServer serves one agent's start requests on fd, which stays
// blocking: the thread that waits in recvmsg is the one the kernel wakes
// and the one that serves the request (worker), one hand-off instead of
// a poller's and a second thread's.
type spawnServer struct {
	fd         int
	ro, rwInRO []string
}

// errStale: the request's layout is not the one this spawner bound.
var errStale = errors.New("stale")

// spawnerMain runs the spawner: bind the layout once, say so, then start
// each command it is sent until the agent's end of the socket closes. Its
// commands die with it.
func spawnerMain(raw string) int {
	unix.CloseOnExec(spawnerFD) // no command may inherit the socket
	if t, err := unix.GetsockoptInt(spawnerFD, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || t != unix.SOCK_SEQPACKET {
		fmt.Fprintln(os.Stderr, "codewhale sandbox spawner: fd 3 is not its socket")
		return 126
	}
	v := &spawnServer{fd: spawnerFD}
	var setup spawnerSetup
	if err := json.Unmarshal([]byte(raw), &setup); err != nil {
		v.reply(spawnReply{Err: "bad setup: " + err.Error()})
		return 126
	}
	if err := inNewNamespaces(setup.Outside); err != nil {
		v.reply(spawnReply{Err: err.Error()})
		return 126
	}
	// Non-dumpable: no command without CAP_SYS_PTRACE here can open the
	// spawner's /proc entries (its memory, its descriptors) whatever else.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		v.reply(spawnReply{Err: "prctl(PR_SET_DUMPABLE): " + err.Error()})
		return 126
	}
	if err := bindLayout(layout{ro: setup.RO, rwInRO: setup.RWInRO}); err != nil {
		v.reply(spawnReply{Err: err.Error()})
		return 126
	}
	v.ro, v.rwInRO = setup.RO, setup.RWInRO
	v.reply(spawnReply{})
	go v.worker()
	select {} // the workers end the process (receive)
}

func (v *spawnServer) reply(r spawnReply) {
	raw, _ := json.Marshal(r)
	_ = unix.Sendmsg(v.fd, raw, nil, nil, unix.MSG_NOSIGNAL)
}

// worker locks a thread, waits there for one request, starts the next
// worker and serves the request: the thread, and the runtime's work to
// make one, is ready before a request arrives rather than after.
func (v *spawnServer) worker() {
	runtime.LockOSThread() // never unlocked: see start
	req, files := v.receive()
	go v.worker()
	v.start(req, files)
}

// receive waits for the next request; when the agent's end is closed (it
// is gone) the spawner exits, and its commands with it.
func (v *spawnServer) receive() (spawnRequest, []*os.File) {
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4*(4+maxExtraFiles)))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(v.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 && oobn == 0 {
			os.Exit(0)
		}
		files := receivedFiles(oob[:oobn])
		if flags&unix.MSG_CTRUNC != 0 || len(files) == 0 {
			closeFiles(files) // not a request this spawner's agent sends
			continue
		}
		req, err := readRequest(files[0])
		files[0].Close()
		if err != nil {
			closeFiles(files[1:])
			continue
		}
		return req, files[1:]
	}
}

// receivedFiles are the descriptors of a message (close-on-exec: the net
// package receives with MSG_CMSG_CLOEXEC).
func receivedFiles(oob []byte) []*os.File {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "received"))
		}
	}
	return files
}

func readRequest(f *os.File) (spawnRequest, error) {
	var req spawnRequest
	raw, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	return req, err
}

// start confines the calling goroutine's (locked) thread for req, starts
// the command from it, reports the pid, waits for the command there and
// reports how it ended. The thread is never unlocked: it dies with the
// goroutine, and with it (Pdeathsig) the command if the spawner dies first.
func (v *spawnServer) start(req spawnRequest, files []*os.File) {
	cmd, err := req.command(files)
	if err == nil {
		err = v.confine(req)
	}
	if err == nil {
		err = cmd.Start()
	}
	closeFiles(files)
	if err != nil {
		r := spawnReply{ID: req.ID, Err: err.Error(), Stale: errors.Is(err, errStale)}
		var errno syscall.Errno
		if errors.As(err, &errno) && !errors.Is(err, errConfine) {
			r.Errno = int(errno)
		}
		v.reply(r)
		return
	}
	v.reply(spawnReply{ID: req.ID, Pid: cmd.Process.Pid})
	_ = cmd.Wait()
	var status uint32
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		status = uint32(ws)
	}
	v.reply(spawnReply{ID: req.ID, Exited: true, Status: status})
}

// errConfine marks a failure to confine (rather than to execute).
var errConfine = errors.New("confinement failed")

// command builds the exec.Cmd of req with the received descriptors.
func (req spawnRequest) command(files []*os.File) (*exec.Cmd, error) {
	slots := make([]*os.File, len(req.Files))
	for i, present := range req.Files {
		if !present {
			continue
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%w: fewer descriptors than the request names", errConfine)
		}
		slots[i], files = files[0], files[1:]
	}
	for len(slots) < 3 {
		slots = append(slots, nil)
	}
	cmd := &exec.Cmd{Path: req.Path, Args: req.Args, Env: req.Env, Dir: req.Dir, ExtraFiles: slots[3:],
		SysProcAttr: &syscall.SysProcAttr{Setsid: req.Setsid, Setpgid: req.Setpgid, Pgid: req.Pgid,
			Pdeathsig: syscall.SIGKILL}}
	// Only an *os.File (or nil, /dev/null) reaches the command itself.
	if slots[0] != nil {
		cmd.Stdin = slots[0]
	}
	if slots[1] != nil {
		cmd.Stdout = slots[1]
	}
	if slots[2] != nil {
		cmd.Stderr = slots[2]
	}
	return cmd, nil
}

// confine is the per-command helper's confinement (confineNamespaced),
// applied to this thread inside the namespaces and mounts made once: check
// that the mounts still are what req's layout (resolved by the agent for
// this command) needs, give the thread an
// empty network namespace when the network is denied, apply Landlock with
// the writable roots whole, and drop every capability.
func (v *spawnServer) confine(req spawnRequest) error {
	l := layout{rw: req.RW, ro: req.RO, rwInRO: req.RWInRO}
	if !v.serves(l, req.Bound) {
		return errStale
	}
	if !req.Policy.Network {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("%w: unshare(CLONE_NEWNET): %w", errConfine, err)
		}
	}
	if err := restrict(req.Policy, rwRules(append(l.rw, l.rwInRO...))); err != nil {
		return fmt.Errorf("%w: %w", errConfine, err)
	}
	if err := dropInheritedCapabilities(); err != nil {
		return fmt.Errorf("%w: %w", errConfine, err)
	}
	return nil
}

// dropInheritedCapabilities leaves the command this thread starts no
// capability (bounding, ambient and inheritable sets emptied: whatever its
// uid in the namespace, exec grants nothing) while the thread keeps its
// permitted ones. It waits for the command in the command's own Landlock
// domain, where Landlock would let the command ptrace it; the kernel's
// ptrace check refuses a caller whose capabilities do not include the
// target's, so the command cannot reach into the spawner through it (see
// guardStarter for the agent's threads).
func dropInheritedCapabilities() error {
	if err := clearBoundingAndAmbient(); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	caps[0].Inheritable, caps[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &caps[0]); err != nil {
		return fmt.Errorf("clearing inheritable capabilities: %w", err)
	}
	if caps[0].Permitted == 0 && caps[1].Permitted == 0 {
		return errors.New("the spawner has no capability left to keep its threads out of its commands' reach")
	}
	return nil
}

// serves reports whether l is the layout this spawner bound and its mounts
// are still in place: each bound path is the file the agent sees, and each
// protected one is read-only here. A mount point replaced or renamed from
// outside detaches or moves the mount in this namespace, which this sees.
func (v *spawnServer) serves(l layout, agent []fileID) bool {
	if !slices.Equal(l.ro, v.ro) || !slices.Equal(l.rwInRO, v.rwInRO) {
		return false
	}
	paths := boundPaths(l)
	if len(agent) != len(paths) {
		return false
	}
	for i, p := range paths {
		id, err := statID(p)
		if err != nil || id.Dev != agent[i].Dev || id.Ino != agent[i].Ino {
			return false
		}
		if i < len(l.ro) && !id.ReadOnly || i >= len(l.ro) && id.ReadOnly != agent[i].ReadOnly {
			return false
		}
	}
	return true
}
