package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// With the network denied a command must not reach a service of the
// user's through a unix socket either: Docker's, the D-Bus buses, systemd,
// a tmux server. An empty network namespace hides abstract sockets (they
// belong to a network namespace) and Landlock's scoping (ABI 6) hides the
// abstract sockets of other domains, but a pathname socket is found
// through the file system, which a network namespace does not change, and
// Landlock restricts connect(2) to one only from ABI 9 (RESOLVE_UNIX, not
// granted outside the writable roots: rights_linux.go). Below ABI 9 the
// kernel has no rule for "this path, not that one", and a mount namespace
// cannot hide every socket while reads stay unrestricted, so the command's
// thread gets a seccomp filter that refuses to create unix sockets at all
// (EACCES), outside and inside the writable roots alike: socket(AF_UNIX),
// socketpair(AF_UNIX, SOCK_DGRAM) (a datagram socket can be sent to any
// path; a connected stream pair cannot be reconnected, so pipes-like
// stream pairs keep working), the 32-bit socketcall and socket entry
// points, x32 system calls, and io_uring_setup (ENOSYS: io_uring would
// create and connect sockets past the filter; programs fall back to
// ordinary calls). The filter is classic BPF written out here: libseccomp
// needs cgo, which the static build does not have, and the program is a
// few dozen instructions.

// socketFilterNeeded reports whether a command with the network denied
// needs the filter: Landlock below ABI 9 cannot refuse pathname sockets.
func socketFilterNeeded(abi int) bool { return abi < resolveUnixABI }

// refuseUnixSockets installs the filter on the calling thread (which has
// no_new_privs set) when Landlock cannot refuse pathname sockets itself.
func refuseUnixSockets() error {
	abi, err := ll.LandlockGetABIVersion()
	if err == nil && !socketFilterNeeded(abi) {
		return nil
	}
	prog, ok := unixSocketFilter(runtime.GOARCH)
	if !ok {
		return nil // Status says unix sockets are not refused on this architecture
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// SPEC_ALLOW: kernels before 5.16 otherwise turn on the speculative
	// store bypass mitigation for every filtered task, which slows the
	// command's own work; the filter is about sockets, not Spectre. A
	// kernel before 4.17 does not know the flag (EINVAL).
	err = setFilter(unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog)
	if errors.Is(err, unix.EINVAL) {
		err = setFilter(0, &fprog)
	}
	runtime.KeepAlive(prog)
	if err != nil {
		return fmt.Errorf("installing the seccomp filter that refuses unix sockets: %w", err)
	}
	return nil
}

func setFilter(flags uintptr, fprog *unix.SockFprog) error {
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(fprog)))
	if e != 0 {
		return e
	}
	return nil
}

// unixSocketsRefusable reports whether this build has the filter for its
// architecture.
func unixSocketsRefusable() bool { return len(filterArchs(runtime.GOARCH)) > 0 }

// bwrapSocketFilter hands bubblewrap the filter (--seccomp) on a pipe
// appended to cmd.ExtraFiles. Start closes its end once the command has
// started; a caller of Wrap that starts cmd itself leaves that to the
// file's finalizer.
func bwrapSocketFilter(cmd *exec.Cmd) ([]string, error) {
	prog, ok := unixSocketFilter(runtime.GOARCH)
	if !ok {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: a pipe for the seccomp filter: %w", err)
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	_, err = w.Write(raw) // a few hundred bytes: within the pipe's buffer
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: writing the seccomp filter: %w", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return []string{"--seccomp", strconv.Itoa(2 + len(cmd.ExtraFiles))}, nil
}

// sysnums are one architecture's system call numbers the filter looks at
// (0: the architecture has none).
type sysnums struct {
	arch                                         uint32 // AUDIT_ARCH_*
	socket, socketpair, socketcall, ioUringSetup uint32
	x32                                          bool // refuse the x32 ABI's calls
}

// filterArchs are the native and compatibility ABIs of each GOARCH the
// filter supports, with their numbers written out (x/sys/unix has only
// the build's own) so that every branch can be checked on any machine.
func filterArchs(goarch string) []sysnums {
	switch goarch {
	case "amd64":
		return []sysnums{{arch: unix.AUDIT_ARCH_X86_64, socket: 41, socketpair: 53, ioUringSetup: 425, x32: true},
			{arch: unix.AUDIT_ARCH_I386, socketcall: 102, socket: 359, socketpair: 360, ioUringSetup: 425}}
	case "arm64":
		return []sysnums{{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199, ioUringSetup: 425},
			{arch: unix.AUDIT_ARCH_ARM, socket: 281, socketpair: 288, ioUringSetup: 425}}
	}
	return nil
}

// unixSocketFilter is the filter for goarch, false where it has none.
func unixSocketFilter(goarch string) ([]unix.SockFilter, bool) {
	archs := filterArchs(goarch)
	if len(archs) == 0 {
		return nil, false
	}
	prog := []unix.SockFilter{stmt(ldAbs, offArch)}
	for _, a := range archs {
		body := archFilter(a)
		prog = append(prog, jump(jeqK, a.arch, 0, uint8(len(body))))
		prog = append(prog, body...)
	}
	return append(prog, stmt(retK, errno(unix.ENOSYS))), true
}

// Classic BPF over struct seccomp_data: nr at 0, arch at 4, the arguments
// from 16 in 8 bytes each (the low half first: both architectures are
// little-endian).
const (
	offNR, offArch, offArg0, offArg1 = 0, 4, 16, 24

	ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeqK  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jgeK  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	andK  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	retK  = unix.BPF_RET | unix.BPF_K

	allow        = unix.SECCOMP_RET_ALLOW
	x32Bit       = 0x40000000 // __X32_SYSCALL_BIT
	sockTypeMask = 0xf        // SOCK_TYPE_MASK: the type without SOCK_NONBLOCK, SOCK_CLOEXEC
	sysSocket    = 1          // socketcall's SYS_SOCKET
	sysPair      = 8          // socketcall's SYS_SOCKETPAIR
)

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

func errno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }

// archFilter is the part of the filter for one ABI, entered with the arch
// checked; it always returns.
func archFilter(a sysnums) []unix.SockFilter {
	p := []unix.SockFilter{stmt(ldAbs, offNR)}
	if a.x32 {
		p = append(p, jump(jgeK, x32Bit, 0, 1), stmt(retK, errno(unix.ENOSYS)))
	}
	if a.socket != 0 {
		p = append(p,
			jump(jeqK, a.socket, 0, 4),
			stmt(ldAbs, offArg0),
			jump(jeqK, unix.AF_UNIX, 0, 1),
			stmt(retK, errno(unix.EACCES)),
			stmt(retK, allow))
	}
	if a.socketpair != 0 {
		p = append(p,
			jump(jeqK, a.socketpair, 0, 7),
			stmt(ldAbs, offArg0),
			jump(jeqK, unix.AF_UNIX, 0, 4),
			stmt(ldAbs, offArg1),
			stmt(andK, sockTypeMask),
			jump(jeqK, unix.SOCK_DGRAM, 0, 1),
			stmt(retK, errno(unix.EACCES)),
			stmt(retK, allow))
	}
	if a.socketcall != 0 { // the domain is behind a pointer: refuse every socket and pair
		p = append(p,
			jump(jeqK, a.socketcall, 0, 5),
			stmt(ldAbs, offArg0),
			jump(jeqK, sysSocket, 2, 0),
			jump(jeqK, sysPair, 1, 0),
			stmt(retK, allow),
			stmt(retK, errno(unix.EACCES)))
	}
	if a.ioUringSetup != 0 {
		p = append(p, jump(jeqK, a.ioUringSetup, 0, 1), stmt(retK, errno(unix.ENOSYS)))
	}
	return append(p, stmt(retK, allow))
}
