package sandbox

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A process that must start no other process nor run another program (the
// rlm kernel) lowers RLIMIT_NPROC to 0, but the kernel does not apply that
// limit to root (INIT_USER, in any user namespace mapped to it), so the
// process also installs this seccomp filter on itself before any untrusted
// code runs: fork, vfork, clone and clone3 fail with EAGAIN (what the limit
// gives), execve and execveat with EACCES, and the x32 ABI's calls with
// ENOSYS. A filter cannot be removed once installed, and it holds for
// root as for anyone. It is the same classic BPF as the socket filter
// (sockets_linux.go), for the build's architecture.

// procnums are one ABI's process-creating and program-running calls (0:
// the ABI has no such call).
type procnums struct {
	arch                       uint32 // AUDIT_ARCH_*
	fork, vfork, clone, clone3 uint32
	execve, execveat           uint32
	x32                        bool
}

// processArchs are the native and compatibility ABIs of each GOARCH the
// filter supports, numbers written out as filterArchs does.
func processArchs(goarch string) []procnums {
	switch goarch {
	case "amd64":
		return []procnums{
			{arch: unix.AUDIT_ARCH_X86_64, fork: 57, vfork: 58, clone: 56, clone3: 435, execve: 59, execveat: 322, x32: true},
			{arch: unix.AUDIT_ARCH_I386, fork: 2, vfork: 190, clone: 120, clone3: 435, execve: 11, execveat: 358}}
	case "arm64":
		return []procnums{
			{arch: unix.AUDIT_ARCH_AARCH64, clone: 220, clone3: 435, execve: 221, execveat: 281},
			{arch: unix.AUDIT_ARCH_ARM, fork: 2, vfork: 190, clone: 120, clone3: 435, execve: 11, execveat: 387}}
	}
	return nil
}

// NoProcessesFilter is the filter as the kernel's struct sock_filter array
// (eight bytes an instruction, native byte order), ready for
// seccomp(SECCOMP_SET_MODE_FILTER) or prctl(PR_SET_SECCOMP); false where
// this build has none for its architecture.
func NoProcessesFilter() ([]byte, bool) {
	prog, ok := noProcessesProgram(runtime.GOARCH)
	if !ok {
		return nil, false
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	return append([]byte(nil), raw...), true
}

func noProcessesProgram(goarch string) ([]unix.SockFilter, bool) {
	archs := processArchs(goarch)
	if len(archs) == 0 {
		return nil, false
	}
	prog := []unix.SockFilter{stmt(ldAbs, offArch)}
	for _, a := range archs {
		body := processArchFilter(a)
		prog = append(prog, jump(jeqK, a.arch, 0, uint8(len(body))))
		prog = append(prog, body...)
	}
	// An ABI the filter does not know gets nothing (as the socket filter).
	return append(prog, stmt(retK, errno(unix.ENOSYS))), true
}

// processArchFilter is one ABI's part, entered with the arch checked; it
// always returns.
func processArchFilter(a procnums) []unix.SockFilter {
	p := []unix.SockFilter{stmt(ldAbs, offNR)}
	if a.x32 {
		p = append(p, jump(jgeK, x32Bit, 0, 1), stmt(retK, errno(unix.ENOSYS)))
	}
	refuse := func(nr uint32, e unix.Errno) {
		if nr != 0 {
			p = append(p, jump(jeqK, nr, 0, 1), stmt(retK, errno(e)))
		}
	}
	for _, nr := range []uint32{a.fork, a.vfork, a.clone, a.clone3} {
		refuse(nr, unix.EAGAIN)
	}
	refuse(a.execve, unix.EACCES)
	refuse(a.execveat, unix.EACCES)
	return append(p, stmt(retK, allow))
}
