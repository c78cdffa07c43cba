package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// States of a server, as /lsp and doctor show them.
const (
	StateStarting = "starting"
	StateReady    = "ready"
	StateFailed   = "failed"  // did not start, or did not answer initialize
	StateExited   = "exited"  // stopped by itself after it was ready
	StateStopped  = "stopped" // the session shut it down
)

// client is one running server for one root. Its goroutines — the start,
// the process's wait, the connection's watch and jsonrpc2's reader — all
// end in shutdown.
type client struct {
	srv  Server
	bin  string
	root string
	m    *Manager

	ctx    context.Context // the server's lifetime; cancelled by shutdown
	cancel context.CancelFunc
	ready  chan struct{} // closed when initialize has succeeded or failed
	exited chan struct{} // closed when the process is gone
	// settled is closed once the state says why the connection ended.
	settled chan struct{}
	wg      sync.WaitGroup

	mu      sync.Mutex
	state   string
	why     string // what went wrong, for "no diagnostics (why)"
	conn    *jsonrpc2.Conn
	cmd     *exec.Cmd
	caps    capabilities
	exitErr error
	readErr error // what ended the connection
	cause   error // why it did not start, or why it was stopped
	stderr  *tail
	lastLog string // the last error the server logged
	docs    docSet
	diags   diagStore

	// exitState is how the process ended, once reaped: cmd.ProcessState
	// is written by Wait without the lock, so only wait reads it.
	exitState string
}

func newClient(m *Manager, srv Server, bin, root string) *client {
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{srv: srv, bin: bin, root: root, m: m, ctx: ctx, cancel: cancel, ready: make(chan struct{}),
		exited: make(chan struct{}), settled: make(chan struct{}), state: StateStarting, stderr: &tail{max: 4096}}
	c.docs.init()
	c.diags.init()
	c.diags.keep = c.docs.open
	c.wg.Add(1)
	go c.start()
	return c
}

// start launches the process and initializes it; ready is closed either way.
func (c *client) start() {
	defer c.wg.Done()
	defer close(c.ready)
	err := c.launch()
	if err == nil {
		err = c.initialize()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.cause = err
		if c.state == StateStarting {
			c.state, c.why = StateFailed, c.describe(err)
		}
		if c.conn == nil { // no process, so no watch to settle it
			close(c.settled)
		}
		c.kill()
		return
	}
	if c.state == StateStarting {
		c.state = StateReady
	}
}

// launch starts the process in its own process group with the session's
// scrubbed environment, and the connection over its stdio.
func (c *client) launch() error {
	cmd := exec.Command(c.bin, c.srv.Args...)
	cmd.Dir, cmd.Env, cmd.Stderr, cmd.WaitDelay = c.root, c.m.environ(c.srv.Env), c.stderr, 2*time.Second
	ownGroup(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not start %s: %w", c.bin, err)
	}
	stream := jsonrpc2.NewBufferedStream(pipes{out, in}, codec{fail: c.readFailed})
	conn := jsonrpc2.NewConn(c.ctx, stream, jsonrpc2.HandlerWithError(c.handle),
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	c.mu.Lock()
	c.cmd, c.conn = cmd, conn
	c.mu.Unlock()
	c.wg.Add(2)
	go c.wait(cmd)
	go c.watch(conn)
	return nil
}

// wait reaps the process.
func (c *client) wait(cmd *exec.Cmd) {
	defer c.wg.Done()
	err := cmd.Wait()
	c.mu.Lock()
	c.exitErr = err
	if cmd.ProcessState != nil {
		c.exitState = cmd.ProcessState.String()
	}
	c.mu.Unlock()
	close(c.exited)
}

// watch stops a server whose connection ended while it was wanted (it
// exited, closed its output, or flooded) and records why.
func (c *client) watch(conn *jsonrpc2.Conn) {
	defer c.wg.Done()
	<-conn.DisconnectNotify()
	c.mu.Lock()
	c.kill()
	c.mu.Unlock()
	<-c.exited
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case StateStopped:
	case StateReady:
		c.state, c.why = StateExited, c.describe(c.cause)
	default:
		c.state, c.why = StateFailed, c.describe(c.cause)
	}
	close(c.settled)
	c.diags.broadcast()
}

// readFailed records what ended the connection from the server's side.
func (c *client) readFailed(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		return
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
}

// describe says what went wrong: err, how the process ended, what ended
// the connection, and the last line it wrote to stderr. c.mu is held.
func (c *client) describe(err error) string {
	var parts []string
	if err != nil {
		parts = append(parts, err.Error())
	}
	var fe *floodError
	switch {
	case errors.As(c.readErr, &fe):
		parts = append(parts, fe.Error())
	case c.readErr != nil:
		parts = append(parts, "its output is not LSP: "+c.readErr.Error())
	case err != nil && c.exitErr != nil && c.exitErr.Error() == "signal: killed":
		// Killed for the reason err gives (a start that timed out, a
		// server that stopped reading): the signal adds nothing.
	case c.exitErr != nil:
		parts = append(parts, "it exited: "+c.exitErr.Error())
	case c.exitState != "":
		parts = append(parts, "it exited: "+c.exitState)
	case err == nil:
		parts = append(parts, "it closed its connection")
	}
	if last := c.stderr.last(); last != "" {
		parts = append(parts, "stderr: "+last)
	}
	return strings.Join(parts, "; ")
}

// stop kills a server found broken (it stopped reading its input), keeping
// why for its status.
func (c *client) stop(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cause == nil {
		c.cause = why
	}
	c.kill()
}

// kill ends the process group at once. c.mu is held.
func (c *client) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		killGroup(c.cmd.Process)
	}
}

// initialize sends initialize and initialized, bounded by the manager's
// start timeout, and keeps what the server said it can do.
func (c *client) initialize() error {
	ctx, cancel := context.WithTimeout(c.ctx, c.m.opts.InitTimeout)
	defer cancel()
	var res initializeResult
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	err := conn.Call(ctx, "initialize", c.initializeParams(), &res)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("it did not answer initialize within %v", c.m.opts.InitTimeout)
	case c.ctx.Err() != nil:
		return errors.New("the session ended while it was starting")
	case err != nil:
		return fmt.Errorf("initialize failed: %w", err)
	}
	c.mu.Lock()
	c.caps = res.capabilities()
	c.mu.Unlock()
	return conn.Notify(ctx, "initialized", struct{}{})
}

func (c *client) initializeParams() *protocol.InitializeParams {
	p := &protocol.InitializeParams{}
	p.ProcessID = int32(os.Getpid())
	p.ClientInfo = &protocol.ClientInfo{Name: "codewhale"}
	p.RootURI = protocol.URIFromPath(c.root)
	p.RootPath = c.root
	p.Capabilities = clientCapabilities()
	p.InitializationOptions = c.srv.InitOptions
	p.WorkspaceFolders = []protocol.WorkspaceFolder{{URI: string(protocol.URIFromPath(c.root)), Name: c.root}}
	return p
}

// shutdown asks the server to stop (shutdown, exit) and kills its process
// group when it has not gone within grace; it returns once every goroutine
// of the client has ended.
func (c *client) shutdown(grace time.Duration) {
	c.mu.Lock()
	alive := c.state == StateReady
	c.state = StateStopped
	c.mu.Unlock()
	c.cancel()
	<-c.ready
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	if alive && conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		_ = c.bounded(ctx, func() error {
			if err := conn.Call(ctx, "shutdown", nil, nil); err != nil {
				return err
			}
			return conn.Notify(ctx, "exit", nil)
		})
		cancel()
	}
	if c.cmd != nil {
		select {
		case <-c.exited:
		case <-deadline.C:
			c.mu.Lock()
			c.kill()
			c.mu.Unlock()
		}
	}
	if conn != nil {
		_ = conn.Close()
	}
	c.wg.Wait()
	c.diags.broadcast()
}

// status is the client's state and why.
func (c *client) status() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state, c.why
}

// pipes is the process's stdout and stdin as one stream.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipes) Close() error { return errors.Join(p.w.Close(), p.ReadCloser.Close()) }

// tail keeps the last max bytes a server wrote to stderr.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

// last is the last non-empty line, cut to 200 bytes.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
