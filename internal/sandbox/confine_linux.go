package sandbox

import (
	"fmt"
	"os/exec"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// prepare confines the calling (locked) thread so that cmd, started from
// it, inherits the confinement; through the helper in a user namespace, or
// with bubblewrap, it rewrites cmd instead. tainted reports whether the
// thread was changed and must be discarded.
func (s *Sandbox) prepare(cmd *exec.Cmd) (tainted bool, err error) {
	if s == nil || !s.policy.Mode.confines() {
		return false, nil
	}
	c := s.caps()
	switch mechanismFor(c) {
	case Landlock:
		// Where user namespaces are the way to confine, every command
		// starts in one (the spawner's, or through the helper here), so no
		// thread of the agent is ever confined (see guardStarter).
		if s.userNS(c) {
			if err := s.wrapUserNS(cmd, c); err != nil {
				return false, fmt.Errorf("sandbox: cannot confine the command (%w); it was not started", err)
			}
			return false, nil
		}
		err := applyToThread(s.policy, c)
		if err == nil {
			err = shieldStarter(cmd)
		}
		if err != nil {
			return true, fmt.Errorf("sandbox: cannot confine the command (%w); it was not started. "+
				"Set sandbox_mode = \"danger-full-access\" to run commands without the sandbox", err)
		}
		return true, nil
	case Bwrap:
		return false, wrapBwrap(cmd, c.Bwrap, s.policy)
	}
	return false, nil // unenforced: Status says so
}

// applyToThread confines the calling thread, which must be locked to its
// goroutine and never unlocked afterwards: with a mount namespace the
// protected paths become read-only bind mounts (and a denied network a
// fresh network namespace), then Landlock allows writes only beneath the
// writable roots; without one, writes are carved around the protected
// paths.
func applyToThread(p Policy, c Caps) error {
	l := p.resolve()
	isolated := false
	if c.MountNS && needsNamespace(p, l) {
		if err := isolate(l, !p.Network); err != nil {
			return err
		}
		isolated = true
	}
	if err := guardStarter(c); err != nil {
		return err
	}
	if isolated || len(l.ro) == 0 {
		return restrict(p, rwRules(append(l.rw, l.rwInRO...)))
	}
	return restrict(p, carveRules(l))
}

// guardStarter keeps a command from reaching the thread that starts it.
// That thread stays alive, in the command's own Landlock domain, until the
// command is reaped, and Landlock lets a process ptrace (open /proc/<pid>/
// task/<tid>/mem, pidfd_getfd) any task of its own domain: through it, the
// command could write the agent's memory. The kernel's ptrace check also
// refuses a caller without CAP_SYS_PTRACE when the target is not dumpable,
// and one whose capabilities do not include the target's. So CAP_SYS_PTRACE
// leaves this thread's bounding set (a command run as root execs without
// it while the thread keeps it), and the process is made non-dumpable,
// which stops an unprivileged command. A process that starts children in
// new user namespaces must stay dumpable (it writes their uid_map, which
// a non-dumpable parent's children do not let it), so there commands never
// start from the agent's own threads (prepare, startSpawned) and this
// runs only in the helper, which executes the command in its place.
// Run as root, the command also loses every capability it does not need
// (limitCommandCapabilities): CAP_SYS_PTRACE, CAP_MKNOD and the rest.
func guardStarter(c Caps) error {
	if !c.UserNS {
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", err)
		}
	}
	return limitCommandCapabilities()
}

// needsNamespace reports whether a start under p with layout l needs a
// private mount namespace: a protected path lies inside a writable root,
// or the network is denied (an empty network namespace blocks UDP too).
func needsNamespace(p Policy, l layout) bool {
	return len(l.ro) > 0 || !p.Network
}

// restrict applies Landlock to the calling thread: reads everywhere (or
// as p.Reads allows), the device files, and writes as rules grant.
func restrict(p Policy, writes []landlock.Rule) error {
	rules := append(readRules(p), deviceRules()...)
	rules = append(rules, writes...)
	// Scoped (ABI 6): a command signals and reaches abstract unix sockets
	// only within its own domain, the processes it started; not the agent,
	// another job or any other process of the user's.
	cfg := landlock.V11.BestEffort()
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("the kernel enforces none of the Landlock rules")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	if !p.Network {
		return refuseUnixSockets() // sockets_linux.go
	}
	return nil
}

// deviceRules keep the device files every shell writes to usable.
// /dev/tty is left out on purpose: a command must not write to the
// terminal the TUI draws on.
func deviceRules() []landlock.Rule {
	return []landlock.Rule{
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom").IgnoreIfMissing(),
		writableDirs("/dev/shm").IgnoreIfMissing(),
	}
}

// rwRules make whole hierarchies writable, renames and links between them
// included, and pathname sockets in them usable (writableAccess).
func rwRules(dirs []string) []landlock.Rule {
	if len(dirs) == 0 {
		return nil
	}
	return []landlock.Rule{writableDirs(dirs...)}
}

// carveRules express "writable except the protected paths" with Landlock
// alone, which can only grant: every writable root is granted whole, except
// that along the way to each protected path only the siblings are granted.
func carveRules(l layout) []landlock.Rule {
	var dirs, files []string
	budget := maxCarveEntries
	for _, r := range l.rw {
		d, f := carve(r, l.ro, &budget)
		dirs, files = append(dirs, d...), append(files, f...)
	}
	// Entries listed by carving may be gone by the time their rule is added
	// (a busy temp dir): those need no rule.
	rules := []landlock.Rule{writableDirs(dirs...).IgnoreIfMissing()}
	if len(l.rwInRO) > 0 {
		rules = append(rules, rwRules(l.rwInRO)...)
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	return rules
}
