package mcp

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTerminateGrace is how long closing a stdio server waits after closing
// its stdin before SIGTERM, and after SIGTERM before SIGKILL. Some servers
// (server-everything) never exit on stdin close; the SDK's default of 5 s
// would stall every reload and exit.
const stdioTerminateGrace = 200 * time.Millisecond

// stderrDrain bounds how long a server's stderr is still read after it
// exited: a grandchild that inherited stderr must not hold the reader open
// forever.
const stderrDrain = time.Second

// proc is a stdio server's process. The pool starts it, waits for it and
// ends it itself (the SDK only sees its pipes, through an IOTransport), so
// that how it ended can be read while the SDK shuts the connection down:
// only the waiter calls Wait and reads ProcessState, and it publishes them
// by closing exited (stop only signals, which os.Process allows
// concurrently).
type proc struct {
	cmd    *exec.Cmd
	stderr *tail
	grace  time.Duration

	started atomic.Bool
	pidv    atomic.Int64
	stdin   *os.File // our end of the server's stdin
	stdout  *os.File // our end of the server's stdout

	exited   chan struct{} // closed once the process has been reaped
	state    *os.ProcessState
	waitErr  error
	finished chan struct{} // closed after exited, once stderr is read to its end or given up
}

func dialStdio(s *ServerConfig, dir string) *dialed {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = dir
	cmd.Env = childEnv(os.Environ(), s.Env)
	detach(cmd)
	p := &proc{cmd: cmd, stderr: &tail{}, grace: stdioTerminateGrace, exited: make(chan struct{}), finished: make(chan struct{})}
	return &dialed{transport: p, proc: p, stderr: p.stderr}
}

// Connect starts the process and speaks newline-delimited JSON over its
// stdin and stdout. Closing the connection closes stdin, then signals the
// process (see stop).
func (p *proc) Connect(ctx context.Context) (sdk.Connection, error) {
	if !p.started.CompareAndSwap(false, true) {
		return nil, errors.New("stdio server already started")
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	t := &sdk.IOTransport{Reader: io.NopCloser(p.stdout), Writer: stopper{p}}
	return t.Connect(ctx)
}

// start runs the command with pipes of our own (*os.File, so exec starts
// no copying goroutines and Wait never closes a pipe the SDK still reads).
func (p *proc) start() error {
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(files)
		return err
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	err := p.cmd.Start()
	closeAll([]*os.File{inR, outW, errW}) // the child holds its own copies
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return err
	}
	p.pidv.Store(int64(p.cmd.Process.Pid))
	p.stdin, p.stdout = inW, outR
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(p.stderr, errR)
	}()
	go p.wait(errR, drained)
	return nil
}

// wait reaps the process, publishes how it ended, then gives its stderr
// stderrDrain to reach EOF before closing it.
func (p *proc) wait(errR *os.File, drained <-chan struct{}) {
	defer close(p.finished)
	p.waitErr = p.cmd.Wait()
	p.state = p.cmd.ProcessState
	close(p.exited)
	select {
	case <-drained:
	case <-time.After(stderrDrain):
	}
	_ = errR.Close()
}

// stop ends the server the way the MCP spec and the SDK's CommandTransport
// do: close its stdin, wait; SIGTERM, wait; SIGKILL, wait. Once the leader
// is gone it ends the rest of its process group and lets its stderr reach
// the tail, so a failed start's message and stderr are complete when the
// SDK's Connect returns. It returns how the process ended (an
// *exec.ExitError when it failed).
func (p *proc) stop() error {
	_ = p.stdin.Close()
	defer p.stdout.Close()
	if !p.awaitExit() && !p.signal(syscall.SIGTERM) && !p.signal(syscall.SIGKILL) {
		return errors.New("unresponsive subprocess")
	}
	killGroup(p.pid())
	<-p.finished
	return p.waitErr
}

// signal sends sig and waits for the process to be reaped. A send that
// fails otherwise (SIGTERM on Windows) does not wait, as in the SDK.
func (p *proc) signal(sig os.Signal) bool {
	err := p.cmd.Process.Signal(sig)
	switch {
	case errors.Is(err, os.ErrProcessDone):
		<-p.exited // reaped: the waiter publishes it next
		return true
	case err != nil:
		return false
	}
	return p.awaitExit()
}

// awaitExit waits up to the grace period for the process to be reaped.
func (p *proc) awaitExit() bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(p.grace):
		return false
	}
}

// exitState describes how the process ended ("exit status 2", "signal:
// killed"), or "" while it runs or when it never started.
func (p *proc) exitState() string {
	if p == nil {
		return ""
	}
	select {
	case <-p.exited:
		return p.state.String()
	default:
		return ""
	}
}

// pid is the process id, 0 before the process started.
func (p *proc) pid() int {
	if p == nil {
		return 0
	}
	return int(p.pidv.Load())
}

// stopper is the connection's write side: writes go to the server's stdin,
// and closing it stops the server.
type stopper struct{ p *proc }

func (s stopper) Write(b []byte) (int, error) { return s.p.stdin.Write(b) }
func (s stopper) Close() error                { return s.p.stop() }

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
