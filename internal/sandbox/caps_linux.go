package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// commandCaps are the capabilities a command keeps when it runs as root in
// the agent's own user namespace (the agent confines a thread itself):
// those that let it treat the files in its writable roots as root does —
// write files of other owners (a checkout mounted from the host), change
// owners (tar, cp -a, npm) and modes. Every other capability is dropped:
// building and testing software needs none, and several reach past
// Landlock or the mounts — CAP_MKNOD (device nodes), CAP_DAC_READ_SEARCH
// (open_by_handle_at names a file by handle, past the read-only bind mount
// over it), CAP_SYS_ADMIN (with it a root command read the agent's
// /proc/<pid>/environ), CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_BPF,
// CAP_NET_ADMIN, CAP_NET_RAW, CAP_SYS_PTRACE, and CAP_KILL and CAP_SETUID
// (each would let a command signal the thread that waits for it:
// shieldStarter). Commands in a user namespace (the spawner, the helper)
// keep no capability at all.
var commandCaps = []uintptr{unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_FSETID}

// limitCommandCapabilities leaves a command the calling thread starts at
// most commandCaps. Exec hands on the ambient set whatever the uid, and
// gives root the bounding set (with the inheritable one): the ambient and
// inheritable sets are emptied, and every other capability leaves the
// bounding set. The thread keeps its own permitted and effective sets. A
// thread that is not root and cannot change its bounding set (no
// CAP_SETPCAP) hands nothing on once the ambient set is empty: with
// no_new_privs, exec grants nothing a process did not hold.
func limitCommandCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		return fmt.Errorf("reading capabilities: %w", err)
	}
	if caps[0].Inheritable|caps[1].Inheritable != 0 {
		caps[0].Inheritable, caps[1].Inheritable = 0, 0
		if err := unix.Capset(&hdr, &caps[0]); err != nil {
			return fmt.Errorf("clearing inheritable capabilities: %w", err)
		}
	}
	extra, err := boundingBeyond(commandCaps)
	if err != nil || len(extra) == 0 {
		return err
	}
	if caps[unix.CAP_SETPCAP/32].Effective&(1<<(unix.CAP_SETPCAP%32)) == 0 {
		if unix.Getuid() == 0 || unix.Geteuid() == 0 {
			return errors.New("running as root without CAP_SETPCAP, codewhale cannot keep the command's " +
				"capabilities (CAP_MKNOD, CAP_SYS_ADMIN, …) from it")
		}
		return nil
	}
	for _, c := range extra {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}

// boundingBeyond lists the capabilities in the calling thread's bounding
// set that keep does not name.
func boundingBeyond(keep []uintptr) ([]uintptr, error) {
	var out []uintptr
	for c := uintptr(0); ; c++ {
		in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, c, 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			return out, nil // past the last capability the kernel knows
		}
		if err != nil {
			return nil, fmt.Errorf("reading the bounding set: %w", err)
		}
		if in == 1 && !slices.Contains(keep, c) {
			out = append(out, c)
		}
	}
}

// shieldID is the real and saved user id the thread that starts a root
// command takes (nobody's): any id but the command's own.
const shieldID = 65534

// shieldStarter puts the calling thread, which is about to start cmd and
// then wait for it, out of reach of cmd's signals. That thread shares the
// command's Landlock domain, and Landlock's signal scoping (ABI 6) lets a
// process signal its own domain: a SIGSTOP or SIGKILL sent to that one
// thread (tgkill) would stop or kill the whole agent. The kernel refuses a
// signal from a process without CAP_KILL none of whose user ids is the
// target's real or saved id, so the thread of a root agent sets its real
// and saved ids to shieldID, keeping effective id 0 and its capabilities
// (a raw setresuid changes one thread's credentials; Go's wrappers change
// every thread's). cmd sets its ids back to the thread's before it
// executes (SysProcAttr.Credential) and so runs as root, with
// commandCaps, neither CAP_KILL nor CAP_SETUID among them. The thread is
// discarded once the command is reaped (Start). A thread that is not root
// is left as it is: the command runs as the same user and can signal it
// (README, Sandbox).
func shieldStarter(cmd *exec.Cmd) error {
	uid, gid := unix.Getuid(), unix.Getgid()
	if uid != 0 || cmd.SysProcAttr.Credential != nil {
		return nil
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, shieldID, ^uintptr(0), shieldID); e != 0 {
		return fmt.Errorf("setresuid on the starting thread: %w", e)
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	return nil
}
