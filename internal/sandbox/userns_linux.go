package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Without CAP_SYS_ADMIN the agent cannot give a thread its own mount
// namespace, and Landlock alone can only grant, so protected paths would
// have to be carved around (carve_linux.go), which leaves no way to create
// entries in the workspace root. Where the kernel lets an unprivileged
// process create a user namespace, a command that needs a mount namespace
// is started as codewhale's helper in a new user + mount (+ network)
// namespace instead: the clone makes the namespaces, the helper binds the
// protected paths read-only, applies Landlock with the writable roots whole,
// drops every capability and executes the command. unshare(CLONE_NEWUSER)
// is refused in a multithreaded process such as the agent, so the
// namespaces come from the clone and the mounts from a re-executed process.

// userNS reports whether commands that need a mount namespace get one
// through the helper in a new user namespace: the agent cannot make one on
// a thread itself, the probe found user namespaces usable, and a helper is
// configured.
func (s *Sandbox) userNS(c Caps) bool { return !c.MountNS && c.UserNS && s.opts.Helper != "" }

// namespaced reports whether protected paths are read-only bind mounts
// (rather than carved around) for commands started now.
func (s *Sandbox) namespaced(c Caps) bool { return c.MountNS || s.userNS(c) }

// helperCaps are what the helper needs inside its user namespace (to mount,
// and to empty its capability bounding set); it drops them all before it
// executes the command.
var helperCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}

// wrapUserNS rewrites cmd to start as the helper in a new user and mount
// namespace (and network namespace when the network is denied) that maps
// only the agent's own uid and gid, so files keep their owners and the
// command runs as the user, not as root.
func (s *Sandbox) wrapUserNS(cmd *exec.Cmd, c Caps) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	outside, err := namespaces()
	if err != nil {
		return err
	}
	if err := s.wrapHelper(cmd, helperRequest{Policy: s.policy, Caps: c, Namespaced: true, Outside: outside}); err != nil {
		return err
	}
	userNSAttr(cmd, !s.policy.Network)
	return nil
}

func userNSAttr(cmd *exec.Cmd, noNet bool) {
	// The uid_map of a non-dumpable process's child cannot be written by
	// an unprivileged parent. A process that confines its own threads
	// without user namespaces is made non-dumpable (guardStarter); only
	// one that builds both kinds of sandbox (tests do) meets this.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	if noNet {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false // an unprivileged gid_map needs setgroups denied
	a.AmbientCaps = helperCaps
}

// confineNamespaced is the helper's work inside the namespaces the clone
// made: bind the protected paths read-only, return to the working
// directory through the new mounts (it was entered before they existed, so
// it would still reach the writable ones underneath), apply Landlock with
// the writable roots whole, and drop every capability.
func confineNamespaced(p Policy, outside string) error {
	if err := inNewNamespaces(outside); err != nil {
		return err
	}
	l := p.resolve()
	if err := bindLayout(l); err != nil {
		return err
	}
	if wd, err := unix.Getwd(); err == nil {
		if err := unix.Chdir(wd); err != nil {
			return fmt.Errorf("re-entering %s: %w", wd, err)
		}
	}
	if err := restrict(p, rwRules(append(l.rw, l.rwInRO...))); err != nil {
		return err
	}
	return dropCapabilities()
}

// clearBoundingAndAmbient empties the calling thread's bounding set (which
// needs CAP_SETPCAP) and its ambient set: what exec could hand on beyond
// the inheritable set.
func clearBoundingAndAmbient() error {
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the last capability the kernel knows
		}
		if err != nil {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	return nil
}

// dropCapabilities empties every capability set of the calling thread
// (bounding first, which needs CAP_SETPCAP), so the program it executes
// next has no capability in the user namespace, whatever its uid there (0
// when the agent runs as a root that lacks CAP_SYS_ADMIN: then the
// inheritable set alone would hand the helper's capabilities on).
func dropCapabilities() error {
	if err := clearBoundingAndAmbient(); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("clearing capabilities: %w", err)
	}
	return nil
}

// probeUserNS runs the helper once in a new user and mount namespace and
// has it bind a directory read-only and drop its capabilities, as every
// namespaced start will: a kernel that forbids unprivileged user
// namespaces fails the clone, one that restricts them (AppArmor on Ubuntu
// 24.04 and later) fails the mount. It returns why not when it cannot.
func probeUserNS(helper string) (bool, string) {
	if helper == "" {
		return false, "no helper executable is configured"
	}
	outside, err := namespaces()
	if err != nil {
		return false, err.Error()
	}
	cmd := exec.Command(helper, HelperArg, helperProbe, outside)
	cmd.Dir = os.TempDir()
	cmd.Env = []string{}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	userNSAttr(cmd, false)
	if err := cmd.Start(); err != nil {
		return false, "cannot create a user namespace (" + err.Error() + "; unprivileged user namespaces may be " +
			"disabled: /proc/sys/user/max_user_namespaces, kernel.unprivileged_userns_clone)"
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return false, "cannot mount in a user namespace (" + strings.TrimSpace(out.String()) + "; " + err.Error() +
				"; AppArmor may restrict unprivileged user namespaces: kernel.apparmor_restrict_unprivileged_userns)"
		}
		return true, ""
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return false, "the user-namespace probe did not finish within 10 s"
	}
}

// probeHelper is the helper's side of probeUserNS.
func probeHelper(outside string) error {
	if err := inNewNamespaces(outside); err != nil {
		return err
	}
	wd, err := unix.Getwd()
	if err != nil {
		return err
	}
	if err := bindLayout(layout{ro: []string{wd}}); err != nil {
		return err
	}
	return dropCapabilities()
}

// namespaces names the calling thread's user and mount namespaces: the
// thread's, not the process's (/proc/self is the main thread, which a
// confined start may have left in a namespace of its own).
func namespaces() (string, error) {
	var ids []string
	for _, ns := range []string{"user", "mnt"} {
		id, err := os.Readlink("/proc/thread-self/ns/" + ns)
		if err != nil {
			return "", fmt.Errorf("reading the %s namespace: %w", ns, err)
		}
		ids = append(ids, id)
	}
	return strings.Join(ids, " "), nil
}

// inNewNamespaces refuses unless the helper runs in user and mount
// namespaces other than outside's (the agent's): run by hand, or by a
// command, the helper would otherwise bind paths read-only in the caller's
// mount namespace, for every process that shares it.
func inNewNamespaces(outside string) error {
	own, err := namespaces()
	if err != nil {
		return err
	}
	refuse := fmt.Errorf("the helper must be started in new user and mount namespaces (it runs in %s)", own)
	o := strings.Fields(outside)
	for i, id := range strings.Fields(own) {
		if len(o) != 2 || o[i] == id {
			return refuse
		}
	}
	// outside comes from the command line: whatever it says, the initial
	// user namespace (identity-mapped in full) is never a new one.
	if m, err := os.ReadFile("/proc/thread-self/uid_map"); err != nil || strings.Join(strings.Fields(string(m)), " ") == "0 0 4294967295" {
		return refuse
	}
	return nil
}
