package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// A command started from inside a protected directory is held by the
// read-only mounts all the same (the helper enters its working directory
// before it binds them, so it re-enters it afterwards).
func TestProtectedWorkingDirectoryStaysReadOnly(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			for _, dir := range []string{filepath.Join(w.ws, ".git"), filepath.Join(w.ws, ".codewhale")} {
				before := tree(t, dir)
				run(t, sb, dir, `echo x > config; echo x > config.toml; mkdir -p hooks; echo x > hooks/pre-commit; touch new`)
				if diff, ok := sameTree(before, tree(t, dir)); !ok {
					t.Fatalf("a command started in %s changed it: %s", dir, diff)
				}
			}
		})
	}
}

// Through the user namespace the command runs as the user (not as root in
// the namespace), in namespaces of its own, with no capability left, and
// can create entries in the workspace root.
// README.md "Sandbox": through the user namespace a command runs as you, with no capability left, and can create entries in the workspace root.
func TestUserNamespaceCommands(t *testing.T) {
	v := userNSVariant(t)
	if c := probeSystem(os.Args[0], ""); os.Getuid() != 0 && !c.UserNS {
		t.Fatalf("unprivileged, the system probe finds no user namespace although the variant works: %+v", c)
	}
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, false), v.options())
	if st := sb.Status(); !strings.Contains(st.Detail, "user + mount namespace") || !st.NetworkBlocked() {
		t.Fatalf("status %+v", st)
	}
	out, ok := run(t, sb, w.ws, `id -u; id -g; readlink /proc/self/ns/user /proc/self/ns/mnt /proc/self/ns/net; `+
		`grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; touch "$W/newtop.txt" && echo created`, "W="+w.ws)
	if !ok {
		t.Fatalf("command failed: %s", out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 11 || lines[0] != strconv.Itoa(os.Getuid()) || lines[1] != strconv.Itoa(os.Getgid()) {
		t.Fatalf("ids or output shape:\n%s", out)
	}
	for i, ns := range []string{"user", "mnt", "net"} {
		own, err := os.Readlink("/proc/thread-self/ns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		if lines[2+i] == own {
			t.Errorf("the command shares the agent's %s namespace (%s)", ns, own)
		}
	}
	for _, l := range lines[5:10] {
		if !strings.HasSuffix(l, "0000000000000000") {
			t.Errorf("capabilities left: %s", l)
		}
	}
	if lines[10] != "created" {
		t.Fatalf("no entry created in the workspace root: %s", out)
	}
}

// userNSVariant is the user-namespace variant, or the test is recorded as
// missing its dependency.
func userNSVariant(t *testing.T) variant {
	t.Helper()
	for _, v := range variants(t) {
		if v.caps.UserNS {
			return v
		}
	}
	_, why := probeUserNS(os.Args[0])
	e2e.Missing(t, "user namespaces are not usable here: "+why)
	return variant{}
}

// Status says which way protected paths are kept read-only, and why the
// user-namespace way is closed when it is.
func TestStatusSaysWhichNamespace(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: WorkspaceWrite, Workspace: "/ws", Network: false}
	cases := []struct {
		name         string
		caps         Caps
		helper       string
		detail, net  string
		carvingLimit string
	}{
		{"root", Caps{LandlockABI: 7, MountNS: true}, "", "private mount namespace", "blocked (network namespace)", ""},
		{"userns", Caps{LandlockABI: 7, UserNS: true}, "/bin/codewhale", "user + mount namespace", "blocked (network namespace)", ""},
		{"userns without a helper", Caps{LandlockABI: 7, UserNS: true}, "", "carved around", "blocked for TCP", "workspace root"},
		{"no userns", Caps{LandlockABI: 7, NoUserNS: "cannot create a user namespace (EPERM)"}, "/bin/codewhale",
			"carved around", "blocked for TCP", "no user namespace either: cannot create a user namespace (EPERM)"},
	}
	for _, c := range cases {
		o := fixedCaps(c.caps)
		o.Helper = c.helper
		st := New(p, o).Status()
		limits := strings.Join(st.Limits, "\n")
		carves := strings.Contains(limits, "granting writes to their siblings")
		if !strings.Contains(st.Detail, c.detail) || !strings.HasPrefix(st.Network, c.net) ||
			carves != (c.carvingLimit != "") || !strings.Contains(limits, c.carvingLimit) ||
			!strings.Contains(st.Report(), c.detail) {
			t.Errorf("%s: %+v", c.name, st)
		}
	}
}

// The helper run outside fresh user and mount namespaces (by hand, or by a
// command) refuses to mount anything: in the caller's namespace its
// read-only binds would hold for every process there. Each case gives the
// child one new namespace only, so a helper that mounted anyway would do so
// in a throwaway namespace, never in the test's.
func TestHelperRefusesToMountInTheCallersNamespaces(t *testing.T) {
	t.Parallel()
	outside, err := namespaces()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	req := `{"policy":{"Mode":"workspace-write","Workspace":"` + dir + `","Protected":["` + dir + `"]},"namespaced":true,"outside":"` + outside + `"}`
	cases := []struct {
		name  string
		flags uintptr
		args  []string
	}{
		{"probe, same user namespace", unix.CLONE_NEWNS, []string{HelperArg, helperProbe, outside}},
		{"request, same user namespace", unix.CLONE_NEWNS, []string{HelperArg, req, "--", "/bin/true"}},
		{"probe, same mount namespace", unix.CLONE_NEWUSER, []string{HelperArg, helperProbe, outside}},
		{"request, same mount namespace", unix.CLONE_NEWUSER, []string{HelperArg, req, "--", "/bin/true"}},
		// Namespace ids made up on the command line do not fool it.
		{"probe, forged ids", unix.CLONE_NEWNS, []string{HelperArg, helperProbe, "user:[1] mnt:[2]"}},
		{"request, forged ids", unix.CLONE_NEWNS, []string{HelperArg, strings.Replace(req, outside, "user:[1] mnt:[2]", 1), "--", "/bin/true"}},
	}
	for _, c := range cases {
		if c.flags == unix.CLONE_NEWNS && os.Getuid() != 0 {
			continue // a mount namespace alone needs CAP_SYS_ADMIN
		}
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: c.flags}
		if c.flags == unix.CLONE_NEWUSER {
			userNSAttr(cmd, false)
			cmd.SysProcAttr.Cloneflags = unix.CLONE_NEWUSER
		}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "must be started in new user and mount namespaces") {
			t.Errorf("%s: err %v, output %s", c.name, err, out)
		}
	}
	raw, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), dir) {
		t.Fatalf("a mount on %s appeared in the test's namespace", dir)
	}
}
