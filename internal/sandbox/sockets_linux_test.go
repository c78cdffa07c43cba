package sandbox

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// With the network denied, a command cannot connect to a unix socket
// outside the writable roots (standing for Docker's or the D-Bus bus).
// With the network allowed it can below Landlock ABI 9, which Status says.
// README.md "Sandbox": with the network denied a command cannot connect to a unix socket outside the writable roots.
func TestUnixSocketsOutsideRefusedWithNetworkDenied(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the connect probe is a Python script)")
	}
	dir, err := os.MkdirTemp("", "cwsock") // short: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "docker.sock")
	accepted := listenUnix(t, sock)
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			w := newWorld(t)
			deny := New(w.policy(WorkspaceWrite, false), v.options())
			before := accepted.Load()
			out, _ := run(t, deny, w.ws, connectScript, "S="+sock)
			if !strings.HasPrefix(out, "refused:") || accepted.Load() != before {
				t.Fatalf("with the network denied a command reached %s: %s", sock, out)
			}
			if d := deny.Explain(out, w.ws); d == nil || d.Reason != "network" {
				t.Errorf("the refusal %q is not explained as the network's: %+v", out, d)
			}
			out, _ = run(t, New(w.policy(WorkspaceWrite, true), v.options()), w.ws, connectScript, "S="+sock)
			if reached := out == "connected"; reached != (v.caps.Bwrap != "" || v.caps.LandlockABI < resolveUnixABI) {
				t.Errorf("with the network allowed at Landlock ABI %d: %s", v.caps.LandlockABI, out)
			}
		})
	}
}

// socketScript makes the sockets the filter must refuse or keep.
var socketScript = `python3 - <<'PY'
import ctypes, socket
a, b = socket.socketpair()
a.send(b"x")
print("stream pair", b.recv(1).decode())
socket.socket(socket.AF_INET).close()
print("inet")
for name, make in (("unix", lambda: socket.socket(socket.AF_UNIX)),
                   ("dgram pair", lambda: socket.socketpair(type=socket.SOCK_DGRAM))):
    try:
        make()
        print(name)
    except OSError as e:
        print(name, "refused", e.errno)
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
print("io_uring", libc.syscall(` + strconv.Itoa(unix.SYS_IO_URING_SETUP) + `, 4, params), ctypes.get_errno())
PY`

// Below Landlock ABI 9, with the network denied, a command creates no unix
// socket (EACCES) and no io_uring (ENOSYS), while a connected stream pair,
// what pipes-like code uses, and an inet socket still work.
// README.md "Sandbox": below ABI 9 with the network denied, no unix socket and no io_uring, while connected socket pairs work.
func TestSocketFilterKeepsStreamPairs(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the probe is a Python script)")
	}
	for _, v := range variants(t) {
		if v.caps.Bwrap == "" && !socketFilterNeeded(v.caps.LandlockABI) {
			continue // Landlock refuses pathname sockets itself
		}
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			out, _ := run(t, New(w.policy(WorkspaceWrite, false), v.options()), w.ws, socketScript)
			want := "stream pair x\ninet\nunix refused 13\ndgram pair refused 13\nio_uring -1 38"
			if out != want {
				t.Fatalf("got\n%s\nwant\n%s", out, want)
			}
			out, _ = run(t, New(w.policy(WorkspaceWrite, true), v.options()), w.ws, socketScript)
			if !strings.Contains(out, "\nunix\ndgram pair\n") {
				t.Fatalf("with the network allowed the filter applied:\n%s", out)
			}
		})
	}
}

// The filter's branches for the other ABIs a kernel runs (32-bit, x32)
// are checked by running the program over the inputs.
func TestSocketFilterProgram(t *testing.T) {
	t.Parallel()
	const allowed = unix.SECCOMP_RET_ALLOW
	eacces, enosys := errno(unix.EACCES), errno(unix.ENOSYS)
	cases := []struct {
		goarch string
		arch   uint32
		nr     uint32
		args   [2]uint32
		want   uint32
	}{
		{"amd64", unix.AUDIT_ARCH_X86_64, 41, [2]uint32{unix.AF_UNIX, unix.SOCK_STREAM}, eacces},
		{"amd64", unix.AUDIT_ARCH_X86_64, 41, [2]uint32{unix.AF_INET, unix.SOCK_STREAM}, allowed},
		{"amd64", unix.AUDIT_ARCH_X86_64, 53, [2]uint32{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, allowed},
		{"amd64", unix.AUDIT_ARCH_X86_64, 53, [2]uint32{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, eacces},
		{"amd64", unix.AUDIT_ARCH_X86_64, 425, [2]uint32{}, enosys},
		{"amd64", unix.AUDIT_ARCH_X86_64, 0x40000000 + 41, [2]uint32{unix.AF_INET}, enosys},
		{"amd64", unix.AUDIT_ARCH_X86_64, 42, [2]uint32{}, allowed}, // connect
		{"amd64", unix.AUDIT_ARCH_I386, 102, [2]uint32{1}, eacces},  // socketcall(SYS_SOCKET)
		{"amd64", unix.AUDIT_ARCH_I386, 102, [2]uint32{8}, eacces},  // socketcall(SYS_SOCKETPAIR)
		{"amd64", unix.AUDIT_ARCH_I386, 102, [2]uint32{3}, allowed}, // socketcall(SYS_CONNECT)
		{"amd64", unix.AUDIT_ARCH_I386, 359, [2]uint32{unix.AF_UNIX}, eacces},
		{"amd64", unix.AUDIT_ARCH_I386, 360, [2]uint32{unix.AF_UNIX, unix.SOCK_DGRAM}, eacces},
		{"amd64", unix.AUDIT_ARCH_I386, 41, [2]uint32{unix.AF_UNIX}, allowed}, // not i386's socket
		{"amd64", unix.AUDIT_ARCH_I386, 425, [2]uint32{}, enosys},
		{"amd64", unix.AUDIT_ARCH_AARCH64, 198, [2]uint32{unix.AF_UNIX}, enosys}, // no such ABI here
		{"arm64", unix.AUDIT_ARCH_AARCH64, 198, [2]uint32{unix.AF_UNIX}, eacces},
		{"arm64", unix.AUDIT_ARCH_AARCH64, 199, [2]uint32{unix.AF_UNIX, unix.SOCK_DGRAM}, eacces},
		{"arm64", unix.AUDIT_ARCH_AARCH64, 0x40000000 + 198, [2]uint32{unix.AF_INET}, allowed}, // no x32 there
		{"arm64", unix.AUDIT_ARCH_ARM, 281, [2]uint32{unix.AF_UNIX}, eacces},
		{"arm64", unix.AUDIT_ARCH_ARM, 288, [2]uint32{unix.AF_UNIX, unix.SOCK_STREAM}, allowed},
	}
	for _, c := range cases {
		prog, ok := unixSocketFilter(c.goarch)
		if !ok {
			t.Fatalf("no filter for %s", c.goarch)
		}
		if got := runFilter(t, prog, c.arch, c.nr, c.args); got != c.want {
			t.Errorf("%s arch %#x nr %d args %v: %#x, want %#x", c.goarch, c.arch, c.nr, c.args, got, c.want)
		}
	}
	if a := filterArchs(runtime.GOARCH); len(a) > 0 && (a[0].socket != unix.SYS_SOCKET ||
		a[0].socketpair != unix.SYS_SOCKETPAIR || a[0].ioUringSetup != unix.SYS_IO_URING_SETUP) {
		t.Errorf("the native numbers for %s are not x/sys/unix's: %+v", runtime.GOARCH, a[0])
	}
	if _, ok := unixSocketFilter("riscv64"); ok {
		t.Error("a filter for an architecture whose numbers it does not know")
	}
}

// runFilter interprets the instructions the filter uses over one
// seccomp_data.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args [2]uint32) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNR:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	binary.LittleEndian.PutUint32(data[offArg0:], args[0])
	binary.LittleEndian.PutUint32(data[offArg1:], args[1])
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case ldAbs:
			a = binary.LittleEndian.Uint32(data[in.K:])
		case andK:
			a &= in.K
		case retK:
			return in.K
		case jeqK, jgeK:
			if in.Code == jeqK && a == in.K || in.Code == jgeK && a >= in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// Start closes its end of the pipe that hands bubblewrap the filter.
func TestBwrapFilterPipeIsClosed(t *testing.T) {
	bw := workingBwrap("")
	if bw == "" {
		e2e.Missing(t, "bubblewrap is not installed or cannot create namespaces")
	}
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, false), fixedCaps(Caps{Bwrap: bw}))
	pipes := func() int {
		n := 0
		entries, _ := os.ReadDir("/proc/self/fd")
		for _, e := range entries {
			if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); strings.HasPrefix(l, "pipe:") {
				n++
			}
		}
		return n
	}
	before := pipes()
	for range 5 {
		if out, ok := run(t, sb, w.ws, "true"); !ok {
			t.Fatal(out)
		}
	}
	if after := pipes(); after > before {
		t.Fatalf("%d pipes open after five starts, %d before", after, before)
	}
}
