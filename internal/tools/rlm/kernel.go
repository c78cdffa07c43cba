package rlm

import (
	"bufio"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/codewhale/codewhale/internal/sandbox"
)

//go:embed kernel.py
var kernelSource []byte

// kernelFile is the kernel's script in its scratch directory.
const kernelFile = ".rlm_kernel.py"

// maxFrame bounds one frame either way.
const maxFrame = 64 << 20

// frame is one protocol message (docs/RLM.md). Only the fields an op uses
// are set.
type frame struct {
	Op      string          `json:"op"`
	ID      int             `json:"id,omitempty"`
	For     int             `json:"for,omitempty"`
	Code    string          `json:"code,omitempty"`
	Path    string          `json:"path,omitempty"`
	Text    *string         `json:"text,omitempty"`
	Prompt  string          `json:"prompt,omitempty"`
	Slices  []string        `json:"slices,omitempty"`
	DepMode string          `json:"dependency_mode,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
	Status  string          `json:"status,omitempty"`
	Stdout  string          `json:"stdout,omitempty"`
	Stderr  string          `json:"stderr,omitempty"`
	Final   *finalValue     `json:"final,omitempty"`
	Length  int             `json:"length,omitempty"`
	Python  string          `json:"python,omitempty"`
	PID     int             `json:"pid,omitempty"`
}

type finalValue struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// evalError is the kernel's report of an exception.
type evalError struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

// Starter starts the kernel's command for interpreter py: the OS sandbox's
// hook, which grants py.Dirs in the kernel's read allow-list (nil starts it
// unconfined; the in-process audit hook is advisory). It returns what Wait
// does.
type Starter func(cmd *exec.Cmd, py Interpreter) (wait func() error, err error)

// kernel is one running python3 process.
type kernel struct {
	cmd     *exec.Cmd
	wait    func() error
	req     *os.File // we write
	resp    *bufio.Reader
	respF   *os.File
	scratch string
	python  string
	dead    chan struct{}
	exitErr error
	mu      sync.Mutex // serialises writes
	// frames carries what the kernel sends after ready; it is closed, with
	// readErr set, when the kernel's pipe ends.
	frames  chan frame
	readErr error
}

// startKernel launches python3 on the embedded kernel with its own scratch
// directory.
func startKernel(py Interpreter, scratch string, env []string, start Starter) (*kernel, error) {
	script := filepath.Join(scratch, kernelFile)
	if err := writeScratch(scratch, kernelFile, kernelSource); err != nil {
		return nil, fmt.Errorf("rlm: writing the kernel: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	// -I: isolated (no user site, no PYTHON* variables), -u: unbuffered.
	cmd := exec.Command(py.Path, "-I", "-u", script)
	cmd.Dir = scratch
	// TMPDIR: the scratch directory is the one place the kernel may write.
	cmd.Env = append(append([]string(nil), env...), "RLM_SCRATCH="+scratch, "RLM_REQ_FD=3", "RLM_RESP_FD=4",
		"PYTHONDONTWRITEBYTECODE=1", "TMPDIR="+scratch)
	// The kernel installs this on itself before any code runs: RLIMIT_NPROC
	// does not hold for root, the filter does (kernel.py _refuse_processes).
	if f, ok := sandbox.NoProcessesFilter(); ok {
		cmd.Env = append(cmd.Env, "RLM_PROCESS_FILTER="+hex.EncodeToString(f))
	}
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.Stdin = nil
	stderr := &tailWriter{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if start == nil {
		start = func(c *exec.Cmd, _ Interpreter) (func() error, error) {
			if err := c.Start(); err != nil {
				return nil, err
			}
			return c.Wait, nil
		}
	}
	wait, err := start(cmd, py)
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return nil, fmt.Errorf("rlm: starting %s: %w", py.Path, err)
	}
	k := &kernel{cmd: cmd, wait: wait, req: reqW, resp: bufio.NewReaderSize(respR, 64<<10), respF: respR,
		scratch: scratch, dead: make(chan struct{})}
	go func() {
		k.exitErr = wait()
		if k.exitErr != nil && stderr.String() != "" {
			k.exitErr = fmt.Errorf("%w: %s", k.exitErr, stderr.String())
		}
		close(k.dead)
	}()
	ready, err := k.read()
	if err != nil || ready.Op != "ready" {
		k.kill()
		return nil, fmt.Errorf("rlm: the kernel did not start: %v %s", err, stderr.String())
	}
	k.python = ready.Python
	k.frames = make(chan frame, 64)
	go k.pump()
	return k, nil
}

// pump forwards the kernel's frames until its pipe ends.
func (k *kernel) pump() {
	defer close(k.frames)
	for {
		f, err := k.read()
		if err != nil {
			k.readErr = err
			return
		}
		k.frames <- f
	}
}

func (k *kernel) write(f frame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if len(data) > maxFrame {
		return fmt.Errorf("rlm: a %d-byte message is over the %d-byte frame limit", len(data), maxFrame)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(data)))
	if _, err := k.req.Write(append(hdr[:], data...)); err != nil {
		return k.deadError(err)
	}
	return nil
}

// read returns the kernel's next frame.
func (k *kernel) read() (frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(k.resp, hdr[:]); err != nil {
		return frame{}, k.deadError(err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return frame{}, fmt.Errorf("rlm: the kernel sent a %d-byte frame (limit %d)", n, maxFrame)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(k.resp, buf); err != nil {
		return frame{}, k.deadError(err)
	}
	var f frame
	if err := json.Unmarshal(buf, &f); err != nil {
		return frame{}, fmt.Errorf("rlm: unreadable frame from the kernel: %w", err)
	}
	return f, nil
}

var errKernelDied = errors.New("the python kernel exited")

func (k *kernel) deadError(err error) error {
	select {
	case <-k.dead:
		return fmt.Errorf("%w (%v)", errKernelDied, k.exitErr)
	case <-time.After(500 * time.Millisecond):
		return fmt.Errorf("%w: %v", errKernelDied, err)
	}
}

// interrupt raises KeyboardInterrupt in the running code.
func (k *kernel) interrupt() {
	if k.cmd.Process != nil {
		_ = k.cmd.Process.Signal(syscall.SIGINT)
	}
}

func (k *kernel) alive() bool {
	select {
	case <-k.dead:
		return false
	default:
		return true
	}
}

// kill ends the kernel and waits for it.
func (k *kernel) kill() {
	if k.cmd.Process != nil {
		_ = k.cmd.Process.Kill()
	}
	k.req.Close()
	<-k.dead
	k.respF.Close()
}

// close asks the kernel to exit, killing it if it does not within a second.
func (k *kernel) close() {
	if k.alive() {
		_ = k.write(frame{Op: "close"})
		select {
		case <-k.dead:
		case <-time.After(time.Second):
		}
	}
	k.kill()
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
