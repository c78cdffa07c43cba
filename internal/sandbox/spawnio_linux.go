package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// spawnIO gives a command the spawner starts the stdio exec.Cmd would: an
// *os.File is passed as it is, nil is /dev/null (opened by the spawner),
// and any other reader or writer is a pipe copied by a goroutine here. It
// is written for this one purpose because exec.Cmd does this only for the
// processes it forks itself.
type spawnIO struct {
	// send are the descriptors for the child: stdin, stdout, stderr, then
	// the extra files; nil for /dev/null.
	send []*os.File
	// ours are the child ends of our pipes, closed once the request is
	// sent; theirs the parent ends, closed after the wait.
	ours, theirs []*os.File
	copies       []func() error
	results      chan error
}

func newSpawnIO(cmd *exec.Cmd) (*spawnIO, error) {
	sio := &spawnIO{}
	in, err := sio.input(cmd.Stdin)
	if err != nil {
		sio.fail()
		return nil, err
	}
	out, err := sio.output(cmd.Stdout)
	if err != nil {
		sio.fail()
		return nil, err
	}
	errw := out
	if cmd.Stderr == nil || !interfaceEqual(cmd.Stderr, cmd.Stdout) {
		if errw, err = sio.output(cmd.Stderr); err != nil {
			sio.fail()
			return nil, err
		}
	}
	sio.send = append([]*os.File{in, out, errw}, cmd.ExtraFiles...)
	return sio, nil
}

// present says which descriptors are sent (spawnRequest.Files).
func (sio *spawnIO) present() []bool {
	p := make([]bool, len(sio.send))
	for i, f := range sio.send {
		p[i] = f != nil
	}
	return p
}

func (sio *spawnIO) input(r io.Reader) (*os.File, error) {
	switch f := r.(type) {
	case nil:
		return nil, nil
	case *os.File:
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sio.ours, sio.theirs = append(sio.ours, pr), append(sio.theirs, pw)
	sio.copies = append(sio.copies, func() error {
		_, err := io.Copy(pw, r)
		if cerr := pw.Close(); err == nil {
			err = cerr
		}
		// As exec.Cmd: a command that stops reading its input is no error.
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		return err
	})
	return pr, nil
}

func (sio *spawnIO) output(w io.Writer) (*os.File, error) {
	switch f := w.(type) {
	case nil:
		return nil, nil
	case *os.File:
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sio.ours, sio.theirs = append(sio.ours, pw), append(sio.theirs, pr)
	sio.copies = append(sio.copies, func() error {
		_, err := io.Copy(w, pr)
		pr.Close()
		if errors.Is(err, os.ErrClosed) {
			err = nil // closed after WaitDelay; wait reports that
		}
		return err
	})
	return pw, nil
}

// started closes the child ends and starts the copying.
func (sio *spawnIO) started() {
	closeFiles(sio.ours)
	sio.results = make(chan error, len(sio.copies))
	for _, c := range sio.copies {
		go func() { sio.results <- c() }()
	}
}

// wait waits for the copying after the command exited: for as long as it
// takes, or with waitDelay for that long before the pipes are closed
// under it (exec.ErrWaitDelay then).
func (sio *spawnIO) wait(waitDelay time.Duration) error {
	var timeout <-chan time.Time
	if waitDelay > 0 {
		t := time.NewTimer(waitDelay)
		defer t.Stop()
		timeout = t.C
	}
	var first error
	for i := 0; i < len(sio.copies); i++ {
		select {
		case err := <-sio.results:
			if first == nil {
				first = err
			}
		case <-timeout:
			closeFiles(sio.theirs)
			timeout = nil
			if first == nil {
				first = exec.ErrWaitDelay
			}
			i-- // this copy has not ended yet
		}
	}
	closeFiles(sio.theirs)
	return first
}

// fail closes every pipe of a command that did not start.
func (sio *spawnIO) fail() {
	closeFiles(sio.ours)
	closeFiles(sio.theirs)
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// interfaceEqual is exec.Cmd's test for one writer serving stdout and
// stderr; comparing uncomparable dynamic types panics, which means no.
func interfaceEqual(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
