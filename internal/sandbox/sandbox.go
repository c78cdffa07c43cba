// Package sandbox confines the commands the agent runs (Bash, Run, task
// gates, later hooks and rlm) to a policy: read everywhere, write only in
// the workspace and a few named roots, with the workspace's .git and
// .codewhale kept read-only, and optionally no network.
//
// The agent process itself is never restricted. On Linux the restriction is
// applied between fork and exec: Start locks a dedicated OS thread, confines
// that thread (Landlock, plus a private mount namespace with read-only bind
// mounts where the process may create one), starts the command from it and
// waits for it there; the thread is then discarded, never returned to the Go
// scheduler. An unprivileged process cannot create that mount namespace, so
// there a command that needs one starts as codewhale's hidden helper entry
// point (HelperMain) in a new user namespace, which makes the mounts and
// applies Landlock before it executes the command (userns_linux.go); where
// user namespaces are unavailable, protected paths are carved around with
// Landlock alone. Commands started by code that calls exec.Cmd.Start itself
// can be rewritten with Wrap, which runs them through the helper to the same
// effect. Where Landlock is missing,
// bubblewrap is used if installed; otherwise commands run unconfined and
// Status says so.
package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// Mode is a sandbox_mode value.
type Mode string

const (
	// ReadOnly: nothing is writable but a few device files; no network.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite (the default): writes only in the workspace and the
	// policy's writable roots; protected paths stay read-only.
	WorkspaceWrite Mode = "workspace-write"
	// FullAccess: no sandbox.
	FullAccess Mode = "danger-full-access"
	// External: codewhale runs inside a sandbox someone else enforces and
	// adds none of its own.
	External Mode = "external-sandbox"
)

// ParseMode reads a sandbox_mode value; "" is the default, workspace-write.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return WorkspaceWrite, nil
	case ReadOnly, WorkspaceWrite, FullAccess, External:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (allowed: read-only, workspace-write, danger-full-access, external-sandbox)", s)
}

// confines reports whether the mode restricts anything.
func (m Mode) confines() bool { return m == ReadOnly || m == WorkspaceWrite }

// Policy is what a sandboxed command may do. Paths are absolute; Start
// resolves symlinks and drops paths that do not exist.
type Policy struct {
	Mode      Mode
	Workspace string
	// WritableRoots are writable besides the workspace (the temp dirs,
	// $CODEWHALE_HOME/tmp, configured writable_roots).
	WritableRoots []string
	// Caches are writable build and package caches (BuildCaches), listed
	// apart so Status can name them.
	Caches []string `json:",omitempty"`
	// Protected stay read-only even inside a writable root (the workspace's
	// .git and .codewhale, codewhale's home and config file).
	Protected []string
	// Network allows outbound network; false blocks what the mechanism
	// can block (Status.Network says what).
	Network bool
	// Reads, when set, is a read allow-list (reads.go): the command reads
	// only beneath its roots, its writable roots and the device files.
	// Nil reads everywhere, as every shell command does.
	Reads *Reads `json:",omitempty"`
}

// Caps is what the system offers for confinement; Options.Probe reports it
// (tests inject their own).
type Caps struct {
	// LandlockABI is the kernel's Landlock ABI version; 0 when absent.
	LandlockABI int
	// MountNS: a thread can create a private mount (and network) namespace
	// (CAP_SYS_ADMIN), so protected paths are read-only bind mounts.
	MountNS bool
	// UserNS: without MountNS, the helper started in a new user namespace
	// can make those mounts (probed by running it once); NoUserNS says why
	// not when it cannot.
	UserNS   bool   `json:",omitempty"`
	NoUserNS string `json:",omitempty"`
	// Bwrap is the path of a working bubblewrap, or "".
	Bwrap string
	// Why explains absent capabilities, for Status.Reason.
	Why string
}

// Options configure a Sandbox.
type Options struct {
	// Probe reports the system's capabilities, once, on first use; nil
	// probes the running system.
	Probe func() Caps
	// Helper is the executable Wrap re-executes: codewhale itself, which
	// dispatches HelperArg before anything else. Without it Wrap refuses
	// (a test binary must not be re-executed by accident).
	Helper string
	// EnvPassthrough names variables Environ keeps although they look like
	// secrets ([shell] env_passthrough).
	EnvPassthrough []string
}

// Sandbox applies one policy. A nil *Sandbox runs commands unconfined
// (with the same process lifetime handling as a confined one). Its methods
// are safe for concurrent use.
type Sandbox struct {
	policy Policy
	opts   Options
	caps   func() Caps // shared by the sandboxes WithMode derives
}

// New returns a sandbox for p. Nothing is probed until the first Start or
// Status.
func New(p Policy, o Options) *Sandbox {
	probe := o.Probe
	if probe == nil {
		probe = func() Caps { return probeSystem(o.Helper, p.Workspace) }
	}
	return &Sandbox{policy: p, opts: o, caps: sync.OnceValue(probe)}
}

// Policy returns the policy.
func (s *Sandbox) Policy() Policy {
	if s == nil {
		return Policy{Mode: FullAccess, Network: true}
	}
	return s.policy
}

// WithMode returns a sandbox that differs only in mode: read-only for Plan,
// danger-full-access for one run the user approved outside the sandbox.
// Read-only also blocks the network.
func (s *Sandbox) WithMode(m Mode) *Sandbox {
	if s == nil {
		return New(Policy{Mode: m, Network: m != ReadOnly}, Options{})
	}
	c := *s
	c.policy.Mode = m
	if m == ReadOnly {
		c.policy.Network = false
	}
	return &c
}

// WithPolicy returns a sandbox for another policy (a kernel confined to its
// scratch directory, say) that shares this one's probe and options.
func (s *Sandbox) WithPolicy(p Policy) *Sandbox {
	if s == nil {
		return New(p, Options{})
	}
	c := *s
	c.policy = p
	return &c
}

// Process is a command started by Start.
type Process struct {
	done chan struct{}
	err  error
	// exited and code are how it ended (as os.ProcessState says), set
	// before done is closed.
	exited bool
	code   int
}

// Wait waits for the command to exit and returns what exec.Cmd.Wait
// returned (an *ExitError where the spawner ran it, see spawner_linux.go).
// It may be called more than once and from any goroutine.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Done is closed when the command has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is the command's exit status, or -1 when a signal ended it (or
// it was not reaped). Valid once Done is closed; cmd.ProcessState is not
// set for a command the spawner ran, so callers read the outcome here.
func (p *Process) ExitCode() int { <-p.done; return p.code }

// Exited reports whether the command exited rather than being killed.
func (p *Process) Exited() bool { <-p.done; return p.exited }

// settle records cmd's outcome once cmd.Wait has returned.
func (p *Process) settle(cmd *exec.Cmd, err error) {
	p.err, p.code = err, -1
	if st := cmd.ProcessState; st != nil {
		p.exited, p.code = st.Exited(), st.ExitCode()
	}
	close(p.done)
}

// Start starts cmd under the sandbox and waits for it on the OS thread that
// started it. That thread lives until the command is reaped, so on Linux
// SysProcAttr.Pdeathsig (which Start sets to SIGKILL) fires when the agent
// dies, not when some scheduler thread exits. A command the sandbox cannot
// confine as its policy demands is not started: confinement fails closed.
// Where the confinement needs a user namespace, the command is started by
// a long-lived spawner process in that namespace instead (spawner_linux.go):
// then cmd.Process is a handle on it and cmd.ProcessState stays nil (read
// Process.ExitCode and Exited), and cmd's StdinPipe, StdoutPipe and
// StderrPipe must not be used (exec.Cmd would keep the child's ends open
// here): give it *os.File pipes or any reader and writer instead.
func (s *Sandbox) Start(cmd *exec.Cmd) (*Process, error) {
	tieToParent(cmd)
	if p, ok, err := s.startSpawned(cmd); ok {
		return p, err
	}
	p := &Process{done: make(chan struct{})}
	started := make(chan error, 1)
	goLocked(func() {
		own := len(cmd.ExtraFiles)
		tainted, err := s.prepare(cmd)
		if err == nil {
			err = cmd.Start()
		}
		closeAdded(cmd, own)
		started <- err
		if err != nil {
			close(p.done)
		} else {
			p.settle(cmd, cmd.Wait())
		}
		if !tainted {
			runtime.UnlockOSThread()
		}
		// A tainted thread stays locked: the runtime ends it with this
		// goroutine instead of scheduling other goroutines on it.
	})
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// closeAdded closes the descriptors prepare appended to cmd.ExtraFiles
// beyond the caller's own (bubblewrap's seccomp filter): the command holds
// its copies once started.
func closeAdded(cmd *exec.Cmd, own int) {
	for _, f := range cmd.ExtraFiles[own:] {
		f.Close()
	}
}

// enforcing reports whether commands are confined: the mode restricts and a
// mechanism is present.
func (s *Sandbox) enforcing() bool { return s.Mechanism() != None }

// Mechanism is what confines commands started now: None when the mode
// confines nothing or no mechanism is present.
func (s *Sandbox) Mechanism() Mechanism {
	if s == nil || !s.policy.Mode.confines() {
		return None
	}
	return mechanismFor(s.caps())
}

// helperPath is the executable Wrap runs.
func (s *Sandbox) helperPath() (string, error) {
	if s.opts.Helper == "" {
		return "", errors.New("no helper executable is configured (Options.Helper)")
	}
	return s.opts.Helper, nil
}
