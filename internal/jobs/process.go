package jobs

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// process is a started command: the leader of its own process group, so
// that a kill reaches everything it forked.
type process struct {
	cmd     *exec.Cmd
	pgid    int
	exited  chan struct{} // closed when the leader has been reaped
	readers sync.WaitGroup
	pipes   []*os.File // parent read ends, closed to unblock stuck readers
	grace   time.Duration
}

// spawn starts spec for j and the goroutines that own it: one reader per
// pipe and a reaper that finishes the job. The reaper is the only goroutine
// that calls cmd.Wait.
func spawn(j *Job, spec Spec, shell string, env []string, grace time.Duration, finish func(*Job, *os.ProcessState)) error {
	cmd := command(spec, shell)
	cmd.Dir = spec.Dir
	cmd.Env = append(append(os.Environ(), env...), spec.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	p := &process{cmd: cmd, exited: make(chan struct{}), grace: grace}
	var parentEnds, childEnds []*os.File
	fail := func(err error) error {
		closeAll(parentEnds)
		closeAll(childEnds)
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	parentEnds, childEnds = append(parentEnds, outR), append(childEnds, outW)
	cmd.Stdout, cmd.Stderr = outW, outW
	errR := outR
	if !spec.Combined {
		var errW *os.File
		if errR, errW, err = os.Pipe(); err != nil {
			return fail(err)
		}
		parentEnds, childEnds = append(parentEnds, errR), append(childEnds, errW)
		cmd.Stderr = errW
	}
	var stdinW *os.File
	if spec.KeepStdin || spec.Stdin != "" {
		var stdinR *os.File
		if stdinR, stdinW, err = os.Pipe(); err != nil {
			return fail(err)
		}
		childEnds = append(childEnds, stdinR)
		cmd.Stdin = stdinR
	}
	if err := cmd.Start(); err != nil {
		if stdinW != nil {
			stdinW.Close()
		}
		return fail(err)
	}
	closeAll(childEnds)
	p.pgid = cmd.Process.Pid
	p.pipes = parentEnds

	j.mu.Lock()
	j.proc = p
	j.stdin = stdinW
	j.mu.Unlock()

	p.readers.Add(1)
	go p.read(outR, j, &j.out, spec.Stdout)
	if !spec.Combined {
		p.readers.Add(1)
		go p.read(errR, j, &j.errs, spec.Stderr)
	}
	if spec.Stdin != "" {
		go func() {
			_ = j.WriteStdin(spec.Stdin, !spec.KeepStdin, 0)
		}()
	}
	go p.reap(j, finish)
	return nil
}

func command(spec Spec, shell string) *exec.Cmd {
	if spec.Program != "" {
		return exec.Command(spec.Program, spec.Args...)
	}
	return exec.Command(shell, "-c", spec.Command)
}

// read copies one pipe into s (and the optional tee) until EOF.
func (p *process) read(r *os.File, j *Job, s *stream, tee io.Writer) {
	defer p.readers.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if tee != nil {
				_, _ = tee.Write(buf[:n])
			}
			j.appendOutput(s, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// reap waits for the leader, then makes sure nothing of the group outlives
// it: a job's process group lives and dies with the job, so a command that
// left a child behind (`sleep 100 &`) does not leave an orphan. Output is
// complete once every holder of the pipes is gone.
func (p *process) reap(j *Job, finish func(*Job, *os.ProcessState)) {
	_ = p.cmd.Wait() // the exit status is read from ProcessState
	close(p.exited)
	readersDone := make(chan struct{})
	go func() { p.readers.Wait(); close(readersDone) }()
	if p.groupAlive() {
		if !j.killRequested() {
			p.signal(syscall.SIGTERM)
			select {
			case <-readersDone:
			case <-time.After(p.grace):
			}
		}
		p.signal(syscall.SIGKILL)
	}
	select {
	case <-readersDone:
	case <-time.After(p.grace + time.Second):
		// Something outside the group (a setsid daemon) still holds a pipe;
		// stop reading rather than wait for it forever.
		closeAll(p.pipes)
		<-readersDone
	}
	closeAll(p.pipes)
	finish(j, p.cmd.ProcessState)
}

// terminate asks the whole group to stop, then kills it after the grace
// period unless the leader exited first.
func (p *process) terminate() {
	p.signal(syscall.SIGTERM)
	go func() {
		select {
		case <-p.exited:
		case <-time.After(p.grace):
		}
		p.signal(syscall.SIGKILL)
	}()
}

func (p *process) signal(sig syscall.Signal) {
	if err := syscall.Kill(-p.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = p.cmd.Process.Signal(sig)
	}
}

func (p *process) groupAlive() bool { return syscall.Kill(-p.pgid, 0) == nil }

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
