package jobs

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
)

// process is a started command with everything it forked: a process group
// (Unix) or Job Object (Windows) that a kill reaches as a whole.
type process struct {
	cmd     *exec.Cmd
	run     *sandbox.Process // reaps cmd on the thread that started it
	tree    *tree
	exited  chan struct{} // closed when the leader has been reaped
	readers sync.WaitGroup
	pipes   []*os.File // parent read ends, closed to unblock stuck readers
	grace   time.Duration
}

// launch is what spawn needs from the manager.
type launch struct {
	shell   string
	env     []string
	sandbox *sandbox.Sandbox
	grace   time.Duration
	finish  func(*Job, *sandbox.Process)
	started func(*Job, *process) // records the job's identity (state file, watchdog)
}

// spawn starts spec for j under the launch's sandbox, and the goroutines
// that own it: one reader per pipe and a reaper that finishes the job.
func spawn(j *Job, spec Spec, l launch) error {
	cmd := command(spec, l.shell)
	cmd.Dir = spec.Dir
	cmd.Env = l.sandbox.Environ(append(append([]string(nil), l.env...), spec.Env...)...)
	p := &process{cmd: cmd, tree: newTree(cmd), exited: make(chan struct{}), grace: l.grace}
	ends, err := p.pipe(spec)
	if err != nil {
		return err
	}
	run, err := l.sandbox.Start(cmd)
	if err != nil {
		ends.close()
		return err
	}
	p.run = run
	closeAll(ends.child)
	p.pipes = ends.parent
	if err := p.tree.started(cmd.Process); err != nil {
		_ = cmd.Process.Kill()
		<-run.Done()
		closeAll(p.pipes)
		if ends.stdin != nil {
			ends.stdin.Close()
		}
		return err
	}

	j.mu.Lock()
	j.proc = p
	j.stdin = ends.stdin
	j.mu.Unlock()
	l.started(j, p)

	p.readers.Add(1)
	go p.read(ends.out, j, &j.out, spec.Stdout)
	if !spec.Combined {
		p.readers.Add(1)
		go p.read(ends.errs, j, &j.errs, spec.Stderr)
	}
	if spec.Stdin != "" {
		go func() {
			_ = j.WriteStdin(spec.Stdin, !spec.KeepStdin, 0)
		}()
	}
	go p.reap(j, l.finish)
	return nil
}

// pipeEnds are a job's pipes: the parent's read ends, the child's ends
// (closed once it started) and the stdin write end.
type pipeEnds struct {
	parent, child []*os.File
	out, errs     *os.File
	stdin         *os.File
}

func (e *pipeEnds) close() {
	closeAll(e.parent)
	closeAll(e.child)
	if e.stdin != nil {
		e.stdin.Close()
	}
}

func (p *process) pipe(spec Spec) (*pipeEnds, error) {
	e := &pipeEnds{}
	fail := func(err error) (*pipeEnds, error) { e.close(); return nil, err }
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	e.parent, e.child = append(e.parent, outR), append(e.child, outW)
	e.out, e.errs = outR, outR
	p.cmd.Stdout, p.cmd.Stderr = outW, outW
	if !spec.Combined {
		errR, errW, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		e.parent, e.child = append(e.parent, errR), append(e.child, errW)
		e.errs, p.cmd.Stderr = errR, errW
	}
	if spec.KeepStdin || spec.Stdin != "" {
		stdinR, stdinW, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		e.child, e.stdin = append(e.child, stdinR), stdinW
		p.cmd.Stdin = stdinR
	}
	return e, nil
}

func command(spec Spec, shell string) *exec.Cmd {
	if spec.Program != "" {
		return exec.Command(spec.Program, spec.Args...)
	}
	return exec.Command(shell, shellArgs(shell, spec.Command)...)
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

// reap waits for the leader, then makes sure nothing of the tree outlives
// it: a job's processes live and die with the job, so a command that left
// a child behind (`sleep 100 &`) does not leave an orphan. Output is
// complete once every holder of the pipes is gone.
func (p *process) reap(j *Job, finish func(*Job, *sandbox.Process)) {
	_ = p.run.Wait() // the exit status is read from p.run (a spawned command has no ProcessState)
	close(p.exited)
	readersDone := make(chan struct{})
	go func() { p.readers.Wait(); close(readersDone) }()
	if p.tree.alive() {
		if !j.killRequested() {
			p.tree.terminate()
			select {
			case <-readersDone:
			case <-time.After(p.grace):
			}
		}
		p.tree.kill()
	}
	select {
	case <-readersDone:
	case <-time.After(p.grace + time.Second):
		// Something outside the tree (a setsid daemon) still holds a pipe;
		// stop reading rather than wait for it forever.
		closeAll(p.pipes)
		<-readersDone
	}
	closeAll(p.pipes)
	p.tree.release()
	finish(j, p.run)
}

// terminate asks the whole tree to stop, then kills it after the grace
// period unless the leader exited first.
func (p *process) terminate() {
	p.tree.terminate()
	go func() {
		select {
		case <-p.exited:
		case <-time.After(p.grace):
		}
		p.tree.kill()
	}()
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
