package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The spawner. Unprivileged, a command that needs the read-only mounts
// starts in a new user + mount namespace, and the mounts must be made by a
// process inside it (userns_linux.go). Re-executing codewhale's helper for
// every command cost 7.6 ms more than an unconfined start (docs/PERFORMANCE.md,
// "Sandbox"): the helper is the whole codewhale binary, and its runtime
// start, package initialisation and page faults dominate, four times the
// 2 ms the issue allows. So the helper is started once per mount layout as
// a spawner: the clone makes the namespaces, the spawner binds the
// protected paths once, and then serves start requests over a socketpair
// that only this process holds. For each command it confines one of its
// own OS threads exactly as the per-command helper confined itself (an
// empty network namespace when the network is denied, Landlock with the
// writable roots whole, every capability dropped), starts the command from
// that thread, waits for it there and lets the thread die. Measured side by
// side (BenchmarkStartTrue, load 18–22 on 2 cores): +0.8–1.9 ms over an
// unconfined start, against +6.5–9.5 ms for the per-command helper; what it
// adds to a thread start in the agent is three cross-process hand-offs
// (request, started, exit status), hence blocking socket ends (packetConn)
// and a worker thread made before the request arrives (spawned_linux.go).
//
// What holds the route to the per-command helper's guarantees:
//   - the layout is resolved for every command, here and again in the
//     spawner; a spawner whose bound paths differ, or whose read-only
//     mounts were detached by a path being replaced from outside, answers
//     "stale" and is replaced (identities in spawnRequest.Bound);
//   - the socket is a socketpair, close-on-exec on both sides, and the
//     descriptors it carries arrive close-on-exec: commands inherit only
//     their stdio;
//   - the spawner dies with this process (Pdeathsig from the locked thread
//     that started it, and EOF on the socket), and its commands die with
//     it (Pdeathsig from the threads that started them), as the helper's
//     did;
//   - a command is reported started only once the spawner's exec succeeded;
//     its exit status comes back over the socket (the agent cannot wait4
//     a grandchild), signals reach its process group directly.
//
// A command with a context (exec.CommandContext) or process attributes the
// spawner does not reproduce still runs through the per-command helper.

// spawnTimeout bounds the wait for the spawner's answer to a start: a
// spawner that does not answer (stopped by a signal, say) is killed.
const spawnTimeout = 10 * time.Second

// maxExtraFiles bounds cmd.ExtraFiles through the spawner.
const maxExtraFiles = 8

// errNotSent: the request never reached a spawner; trying another is safe.
var errNotSent = errors.New("the sandbox spawner is gone")

// startSpawned starts cmd through the spawner when that is how this
// sandbox confines it; ok is false when cmd takes another route.
func (s *Sandbox) startSpawned(cmd *exec.Cmd) (p *Process, ok bool, err error) {
	if s == nil || !s.policy.Mode.confines() || !spawnable(cmd) {
		return nil, false, nil
	}
	c := s.caps()
	if mechanismFor(c) != Landlock || !s.userNS(c) {
		return nil, false, nil
	}
	p, err = s.spawn(cmd, s.policy.resolve())
	return p, true, err
}

// spawnable reports whether the spawner reproduces everything cmd asks
// for: no context to watch, and no process attributes beyond a session or
// group and the parent-death signal (which the spawner always sets).
func spawnable(cmd *exec.Cmd) bool {
	if cmd.Cancel != nil || cmd.Process != nil || len(cmd.ExtraFiles) > maxExtraFiles {
		return false
	}
	if cmd.SysProcAttr == nil {
		return true
	}
	a := *cmd.SysProcAttr
	a.Setsid, a.Setpgid, a.Pgid, a.Pdeathsig = false, false, 0, 0
	return reflect.DeepEqual(a, syscall.SysProcAttr{})
}

// spawn sends cmd to the spawner for l (starting one if needed) and
// returns once the spawner reports it started, or why it did not. A stale
// or vanished spawner is replaced once.
func (s *Sandbox) spawn(cmd *exec.Cmd, l layout) (*Process, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	req, err := spawnRequestFor(cmd, s.policy, l)
	if err != nil {
		return nil, err
	}
	sio, err := newSpawnIO(cmd)
	if err != nil {
		return nil, err
	}
	req.Files = sio.present()
	helper, err := s.helperPath()
	if err != nil {
		sio.fail()
		return nil, err
	}
	key := spawnerKey(helper, l)
	var r spawnReply
	var call *spawnCall
	for attempt := 0; ; attempt++ {
		sp, err := spawners.get(key, func() (*spawner, error) { return startSpawner(helper, l) })
		if err == nil {
			call, r, err = sp.start(req, sio.send)
		}
		retry := errors.Is(err, errNotSent) || err == nil && r.Stale
		if retry && attempt == 0 {
			spawners.drop(sp)
			continue
		}
		if err == nil && r.Stale {
			err = errors.New("the sandbox spawner's read-only mounts no longer match the policy")
		}
		if err != nil {
			sio.fail()
			return nil, fmt.Errorf("sandbox: cannot confine the command (%w); it was not started", err)
		}
		break
	}
	if r.Err != "" {
		sio.fail()
		return nil, r.startError(cmd.Path)
	}
	cmd.Process, _ = os.FindProcess(r.Pid)
	p := &Process{done: make(chan struct{})}
	sio.started()
	go p.await(call, sio, cmd.WaitDelay)
	return p, nil
}

// startError is the error of a start the spawner refused or failed.
func (r spawnReply) startError(path string) error {
	if r.Errno != 0 {
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(r.Errno)}
	}
	return fmt.Errorf("sandbox: cannot confine the command (%s); it was not started", r.Err)
}

// await waits for the spawned command's exit report and its output.
func (p *Process) await(call *spawnCall, sio *spawnIO, waitDelay time.Duration) {
	r := <-call.exited
	p.code = -1
	ws := syscall.WaitStatus(r.Status)
	switch {
	case r.died:
		p.err = errors.New("sandbox: the spawner that ran the command died, and the command with it")
	case ws.Exited() && ws.ExitStatus() == 0:
		p.exited, p.code = true, 0
	default:
		p.exited, p.code = ws.Exited(), ws.ExitStatus()
		p.err = &ExitError{Status: ws}
	}
	if err := sio.wait(waitDelay); p.err == nil {
		p.err = err
	}
	close(p.done)
}

// spawnRequestFor describes cmd as exec.Cmd.Start would run it: a nil
// environment is this process's (with PWD following Dir), an empty
// directory is this process's.
func spawnRequestFor(cmd *exec.Cmd, p Policy, l layout) (spawnRequest, error) {
	req := spawnRequest{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Policy: p}
	if len(req.Args) == 0 {
		req.Args = []string{cmd.Path}
	}
	var err error
	if req.Dir == "" {
		req.Dir, err = os.Getwd()
	} else {
		req.Dir, err = filepath.Abs(req.Dir)
	}
	if err != nil {
		return req, err
	}
	if req.Env == nil {
		req.Env = os.Environ()
		if cmd.Dir != "" {
			req.Env = append(req.Env, "PWD="+req.Dir)
		}
	}
	if a := cmd.SysProcAttr; a != nil {
		req.Setsid, req.Setpgid, req.Pgid = a.Setsid, a.Setpgid, a.Pgid
	}
	req.RW, req.RO, req.RWInRO = l.rw, l.ro, l.rwInRO
	for _, path := range boundPaths(l) {
		id, err := statID(path)
		if err != nil {
			return req, fmt.Errorf("sandbox: %w", err)
		}
		req.Bound = append(req.Bound, id)
	}
	return req, nil
}

// boundPaths are the paths a spawner for l binds, in order.
func boundPaths(l layout) []string {
	return append(append([]string(nil), l.ro...), l.rwInRO...)
}

func statID(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, fmt.Errorf("stat %s: %w", path, err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return fileID{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	return fileID{Dev: st.Dev, Ino: st.Ino, ReadOnly: fs.Flags&unix.ST_RDONLY != 0}, nil
}

func spawnerKey(helper string, l layout) string {
	return helper + "\x00" + strings.Join(l.ro, "\x00") + "\x01" + strings.Join(l.rwInRO, "\x00")
}

// spawner is one running spawner process and the socket to it.
type spawner struct {
	key  string
	conn *packetConn
	proc *os.Process
	// ready gets the spawner's first message.
	ready chan spawnReply

	mu     sync.Mutex
	calls  map[uint64]*spawnCall
	nextID uint64
	// gone: the socket is closed, or closing. retired: no new command is
	// sent; the socket closes when the last one in flight has exited.
	gone, retired bool
}

// spawnCall is one command in flight.
type spawnCall struct {
	started, exited chan spawnReply // each gets one reply
	reported        bool            // started got its reply
}

// startSpawner starts the helper as a spawner for l in a new user and
// mount namespace and waits until it has bound the layout.
func startSpawner(helper string, l layout) (*spawner, error) {
	outside, err := namespaces()
	if err != nil {
		return nil, err
	}
	if helper, err = filepath.Abs(helper); err != nil { // it starts in /
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	c, theirs := &packetConn{fd: fds[0]}, os.NewFile(uintptr(fds[1]), "spawner")
	raw, err := json.Marshal(spawnerSetup{RO: l.ro, RWInRO: l.rwInRO, Outside: outside})
	if err != nil {
		theirs.Close()
		c.release()
		return nil, err
	}
	cmd := exec.Command(helper, HelperArg, helperSpawner, string(raw))
	cmd.Dir, cmd.Env, cmd.ExtraFiles = "/", []string{}, []*os.File{theirs}
	userNSAttr(cmd, false)
	tieToParent(cmd)
	// Its own session: the terminal's signals (^C, ^Z, hang-up) are for
	// codewhale, and would otherwise end or stop every command at once.
	cmd.SysProcAttr.Setsid = true
	sp := &spawner{key: spawnerKey(helper, l), conn: c, ready: make(chan spawnReply, 1),
		calls: map[uint64]*spawnCall{}}
	started := make(chan error, 1)
	go sp.own(cmd, started)
	err = <-started
	theirs.Close() // the spawner holds it now: its death is EOF here
	if err != nil {
		sp.conn.release()
		return nil, fmt.Errorf("starting the sandbox spawner: %w", err)
	}
	sp.proc = cmd.Process
	go sp.read()
	select {
	case r := <-sp.ready:
		if r.died || r.Err != "" {
			_ = sp.proc.Kill()
			return nil, fmt.Errorf("the sandbox spawner could not set up its namespace: %s", or(r.Err, "it exited"))
		}
	case <-time.After(spawnTimeout):
		_ = sp.proc.Kill()
		return nil, fmt.Errorf("the sandbox spawner did not get ready within %s", spawnTimeout)
	}
	return sp, nil
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// own starts the spawner from a locked OS thread and keeps that thread
// until the spawner exits, so its Pdeathsig means "when the agent dies".
// The thread is not changed, so it returns to the scheduler afterwards.
func (sp *spawner) own(cmd *exec.Cmd, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err := cmd.Start()
	started <- err
	if err == nil {
		_ = cmd.Wait()
	}
}

// read delivers the spawner's replies until its socket ends, then fails
// whatever is still in flight.
func (sp *spawner) read() {
	buf := make([]byte, 4096)
	for {
		n, err := sp.conn.recv(buf)
		if err != nil || n == 0 {
			break
		}
		var r spawnReply
		if json.Unmarshal(buf[:n], &r) != nil {
			break // not our spawner's language: stop trusting it
		}
		sp.deliver(r)
	}
	sp.conn.release()
	if sp.proc != nil {
		_ = sp.proc.Kill()
	}
	spawners.forget(sp)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.gone = true
	select {
	case sp.ready <- spawnReply{died: true}:
	default:
	}
	for id, c := range sp.calls {
		if c.reported {
			c.exited <- spawnReply{died: true}
		} else {
			c.started <- spawnReply{died: true}
		}
		delete(sp.calls, id)
	}
}

func (sp *spawner) deliver(r spawnReply) {
	if r.ID == 0 {
		select {
		case sp.ready <- r:
		default:
		}
		return
	}
	sp.mu.Lock()
	c := sp.calls[r.ID]
	switch {
	case c == nil:
	case r.Exited:
		c.exited <- r
		delete(sp.calls, r.ID)
	case !c.reported:
		c.reported = true
		c.started <- r
		if r.Pid == 0 {
			delete(sp.calls, r.ID)
		}
	}
	closeNow := sp.retired && !sp.gone && len(sp.calls) == 0
	sp.gone = sp.gone || closeNow
	sp.mu.Unlock()
	if closeNow {
		sp.conn.Close()
	}
}

// retire stops sending commands to sp and ends it once none is in flight
// (at once when idle): closing the socket ends a spawner, and with it the
// commands it still runs.
func (sp *spawner) retire() {
	sp.mu.Lock()
	sp.retired = true
	closeNow := !sp.gone && len(sp.calls) == 0
	sp.gone = sp.gone || closeNow
	sp.mu.Unlock()
	if closeNow {
		sp.conn.Close()
	}
}

// idle reports whether no command is in flight.
func (sp *spawner) idle() bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return len(sp.calls) == 0
}

// start sends req with its descriptors and waits for the spawner's
// answer. errNotSent means the request never reached it.
func (sp *spawner) start(req spawnRequest, files []*os.File) (*spawnCall, spawnReply, error) {
	call := &spawnCall{started: make(chan spawnReply, 1), exited: make(chan spawnReply, 1)}
	sp.mu.Lock()
	if sp.gone || sp.retired {
		sp.mu.Unlock()
		return nil, spawnReply{}, errNotSent
	}
	sp.nextID++
	req.ID = sp.nextID
	sp.calls[req.ID] = call
	sp.mu.Unlock()
	if err := sp.send(req, files); err != nil {
		sp.mu.Lock()
		delete(sp.calls, req.ID)
		sp.mu.Unlock()
		return nil, spawnReply{}, err
	}
	var r spawnReply
	select {
	case r = <-call.started:
	case <-time.After(spawnTimeout):
		_ = sp.proc.Kill() // read then fails the call
		r = <-call.started
	}
	if r.died {
		return nil, r, errors.New("the sandbox spawner died before it reported the start (the command may have run " +
			"in part and was killed with it)")
	}
	return call, r, nil
}

// send writes the request into a memfd (a command line can be larger than
// a socket message) and sends it with the command's descriptors.
func (sp *spawner) send(req spawnRequest, files []*os.File) error {
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	fd, err := unix.MemfdCreate("codewhale-spawn", unix.MFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("memfd_create: %w", err)
	}
	mem := os.NewFile(uintptr(fd), "spawn request")
	defer mem.Close()
	if _, err := mem.Write(raw); err != nil {
		return err
	}
	rights := []int{fd}
	for _, f := range files {
		if f != nil {
			rights = append(rights, int(f.Fd()))
		}
	}
	err = sp.conn.send([]byte{'r'}, unix.UnixRights(rights...))
	runtime.KeepAlive(files)
	if err != nil {
		return fmt.Errorf("%w (%v)", errNotSent, err)
	}
	return nil
}
