package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// variant is one way Linux confinement can be built; each must hold the same
// line.
type variant struct {
	name string
	caps Caps
	// helper is the executable a variant re-executes ("" for none).
	helper string
	// rootEntries: new entries may be created directly in the workspace.
	rootEntries bool
}

// options builds the sandbox options of the variant.
func (v variant) options() Options {
	o := fixedCaps(v.caps)
	o.Helper = v.helper
	return o
}

// variants are the confinements this system can build: Landlock with a
// mount namespace made on a thread (root), with one made by the helper in a
// user namespace (unprivileged, and root too), with neither (carving),
// and bubblewrap. The test binary serves as the helper (TestMain).
func variants(t *testing.T) []variant {
	t.Helper()
	sys := probeSystem("", "")
	var vs []variant
	if sys.LandlockABI > 0 {
		if sys.MountNS {
			vs = append(vs, variant{"landlock+mountns", Caps{LandlockABI: sys.LandlockABI, MountNS: true}, "", true})
		}
		if ok, why := probeUserNS(os.Args[0]); ok {
			vs = append(vs, variant{"landlock+userns", Caps{LandlockABI: sys.LandlockABI, UserNS: true}, os.Args[0], true})
		} else {
			t.Logf("no user-namespace variant: %s", why)
		}
		vs = append(vs, variant{"landlock", Caps{LandlockABI: sys.LandlockABI}, "", false})
	}
	if bw := workingBwrap(""); bw != "" {
		vs = append(vs, variant{"bwrap", Caps{Bwrap: bw}, "", true})
	}
	if len(vs) < 4 {
		t.Logf("only %d of 4 confinement variants can run here (Landlock ABI %d, mount namespaces %v)",
			len(vs), sys.LandlockABI, sys.MountNS)
	}
	return vs
}

// hostile commands: none may change the canary, the repository's .git, the
// workspace's .codewhale or codewhale's home, whatever it tries.
var hostile = []string{
	`echo pwned > "$C/new.txt"`,
	`echo pwned >> "$C/keep.txt"`,
	`rm -rf "$C/dir"`,
	`mv "$W/file.txt" "$C/moved.txt"`,
	`ln -s /etc/passwd "$C/link"`,
	`find "$C" -type f -delete`,
	`truncate -s 0 "$C/keep.txt"`,
	`cp /etc/hostname "$C/dir/"`,
	`python3 -c 'import shutil,os; shutil.rmtree(os.environ["C"])'`,
	`eval "rm -rf $C"`,
	`$(echo rm) -rf "$C"`,
	`echo cm0gLXJmICIkQyI= | base64 -d | sh`,
	`cd "$C" && echo x > y`,
	`sh -c 'sh -c "echo deep > \"$C/nested.txt\""'`,
	`echo x > "$W/.git/config"`,
	`printf '#!/bin/sh\ntouch "$C/hooked"\n' > "$W/.git/hooks/pre-commit"; chmod +x "$W/.git/hooks/pre-commit"`,
	`git -C "$W" config core.fsmonitor 'touch "$C/fsmonitor"'`,
	`git -C "$W" add file.txt`,
	`rm -rf "$W/.git"`,
	`mv "$W/.git" "$W/gitgone"`,
	`echo x > "$W/.codewhale/config.toml"`,
	`mkdir "$W/.codewhale/rules"`,
	`rm -rf "$W/.codewhale"`,
	`echo x > "$H/config.toml"`,
	`ln -sf "$C/keep.txt" "$W/sub/link" && echo x > "$W/sub/link"`,
	// The agent's (unconfined) view of the file system, where no read-only
	// bind mount covers .git: Landlock denies ptrace-mode access to a
	// process outside the command's domain.
	`echo x > "/proc/$A/root$W/.git/config"`,
	`echo x > "/proc/$A/root$C/keep.txt"`,
	// Taking the read-only mounts away, directly or from a nested user
	// namespace (whose copies of them are locked).
	`umount -l "$W/.git"; echo x > "$W/.git/config"`,
	`mount -o remount,rw "$W/.git"; echo x > "$W/.git/config"`,
	`unshare -Urm sh -c 'umount -l "$W/.git"; mount -o remount,rw "$W/.git"; echo x > "$W/.git/config"'`,
}

// README.md "Sandbox": an enforced sandbox keeps writes outside the writable roots and to the protected paths from happening (stand-in hostile commands).
func TestHostileCommandsChangeNothingOutside(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			if st := sb.Status(); !st.Enforced {
				t.Fatalf("status %+v", st)
			}
			watched := []string{w.canary, filepath.Join(w.ws, ".git"), filepath.Join(w.ws, ".codewhale"), w.home}
			before := map[string]map[string]string{}
			for _, d := range watched {
				before[d] = tree(t, d)
			}
			env := []string{"C=" + w.canary, "W=" + w.ws, "H=" + w.home, "A=" + strconv.Itoa(os.Getpid())}
			for _, script := range hostile {
				out, _ := run(t, sb, w.ws, script, env...)
				for _, d := range watched {
					if diff, ok := sameTree(before[d], tree(t, d)); !ok {
						t.Fatalf("%q changed %s: %s\noutput: %s", script, d, diff, out)
					}
				}
			}
		})
	}
}

func TestWritableRootsStayWritable(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options())
			cases := []struct {
				script string
				ok     bool
			}{
				{`echo ok > "$W/file.txt"`, true},
				{`echo ok > "$W/sub/new.txt" && mv "$W/sub/new.txt" "$W/sub/renamed.txt"`, true},
				{`mkdir -p "$W/sub/deeper" && echo ok > "$W/sub/deeper/f" && rm -r "$W/sub/deeper"`, true},
				{`mv "$W/sub/a.txt" "$T/a.txt"`, true},
				{`echo ok > "$T/f" && echo ok > "$H/tmp/f"`, true},
				{`echo ok > /dev/null && echo ok >&2`, true},
				{`git -C "$W" status --short >/dev/null`, true},
				{`echo ok > "$W/newtop.txt"`, v.rootEntries},
			}
			env := []string{"W=" + w.ws, "T=" + w.tmp, "H=" + w.home}
			for _, c := range cases {
				if out, ok := run(t, sb, w.ws, c.script, env...); ok != c.ok {
					t.Errorf("%q: ok=%v, want %v: %s", c.script, ok, c.ok, out)
				}
			}
		})
	}
}

// README.md "Sandbox": read-only writes nothing.
func TestReadOnlyWritesNothing(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			sb := New(w.policy(WorkspaceWrite, true), v.options()).WithMode(ReadOnly)
			before := tree(t, w.base)
			for _, s := range []string{`echo x > "$W/file.txt"`, `echo x > "$T/f"`, `mkdir "$W/sub/d"`, `rm "$W/sub/a.txt"`} {
				if out, ok := run(t, sb, w.ws, s, "W="+w.ws, "T="+w.tmp); ok {
					t.Errorf("%q succeeded under read-only: %s", s, out)
				}
			}
			if out, ok := run(t, sb, w.ws, `cat "$W/file.txt" >/dev/null && ls "$W" >/dev/null`, "W="+w.ws); !ok {
				t.Errorf("reading failed under read-only: %s", out)
			}
			if diff, ok := sameTree(before, tree(t, w.base)); !ok {
				t.Fatalf("read-only sandbox changed the tree: %s", diff)
			}
		})
	}
}

// README.md "Sandbox": [network] default = "deny" refuses TCP connect.
func TestNetworkDenyRefusesTCPConnect(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed (the connect probe is a Python one-liner)")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`python3 -c "import socket; socket.create_connection(('127.0.0.1', %d), 3).close()"`, port)
	for _, v := range variants(t) {
		if v.caps.LandlockABI > 0 && v.caps.LandlockABI < 4 && !v.caps.MountNS {
			continue // no network rules below ABI 4; Status says so
		}
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if out, ok := run(t, New(w.policy(WorkspaceWrite, true), v.options()), w.ws, script); !ok {
				t.Fatalf("connect failed with the network allowed: %s", out)
			}
			deny := New(w.policy(WorkspaceWrite, false), v.options())
			out, ok := run(t, deny, w.ws, script)
			if ok {
				t.Fatalf("connect succeeded with the network denied")
			}
			if !deny.Status().NetworkBlocked() {
				t.Fatalf("status does not say the network is blocked: %+v", deny.Status())
			}
			if d := deny.Explain(out, w.ws); d == nil || d.Reason != "network" {
				t.Fatalf("no network denial explained for %q: %+v", out, d)
			}
		})
	}
}

// The agent is never confined: after many confined starts on parallel
// goroutines, every thread of the process still writes outside the
// workspace.
// README.md "Sandbox": the agent process itself is never confined.
func TestAgentStaysUnconfined(t *testing.T) {
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, false), Options{})
	if !sb.Status().Enforced {
		e2e.Missing(t, "neither Landlock nor bubblewrap is available")
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := run(t, sb, w.ws, `echo x > "$C/f"`, "C="+w.canary); ok {
				t.Error("a confined command wrote the canary")
			}
			p := filepath.Join(w.base, fmt.Sprintf("agent-%d", i))
			if err := os.WriteFile(p, []byte("agent"), 0o644); err != nil {
				t.Errorf("the agent itself is confined: %v", err)
			}
		}()
	}
	wg.Wait()
	if err := os.WriteFile(filepath.Join(w.ws, ".git", "agent-probe"), nil, 0o644); err != nil {
		t.Fatalf("the agent cannot write the workspace's .git: %v", err)
	}
}

func TestWrapConfinesThroughTheHelper(t *testing.T) {
	w := newWorld(t)
	sb := New(w.policy(WorkspaceWrite, true), Options{Helper: os.Args[0]})
	if mechanismFor(sb.caps()) != Landlock {
		e2e.Missing(t, "the helper applies Landlock, which is absent here")
	}
	cmd := exec.Command("/bin/sh", "-c", `echo in > "$W/sub/wrapped" && echo out > "$C/wrapped"`)
	cmd.Env = sb.Environ("W="+w.ws, "C="+w.canary)
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Args[1] != HelperArg {
		t.Fatalf("not wrapped: %q", cmd.Args)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") && !strings.Contains(string(out), "Read-only") {
		t.Fatalf("the write outside was not refused: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "sub", "wrapped")); err != nil {
		t.Fatalf("the write inside did not happen: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.canary, "wrapped")); err == nil {
		t.Fatal("the canary was written")
	}
}

// codewhale's home inside a writable root (a temp dir, as in tests and CI)
// is protected, while its tmp/ stays writable.
func TestHomeInsideAWritableRootIsProtected(t *testing.T) {
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			home := filepath.Join(w.tmp, "cwhome")
			mustMkdir(t, filepath.Join(home, "tmp"))
			mustMkdir(t, filepath.Join(home, "secrets"))
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("api_key = \"k\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			p := DefaultPolicy(Defaults{Mode: WorkspaceWrite, Workspace: w.ws, Home: home, TempDirs: []string{w.tmp}, Network: true})
			sb := New(p, v.options())
			before := tree(t, home)
			for _, s := range []string{`echo x > "$H/config.toml"`, `echo x > "$H/secrets/deepseek"`, `rm -rf "$H"`, `mv "$H" "$T/moved"`} {
				run(t, sb, w.ws, s, "H="+home, "T="+w.tmp)
			}
			if diff, ok := sameTree(before, tree(t, home)); !ok {
				t.Fatalf("home changed: %s", diff)
			}
			// Carving leaves the temp root itself without a grant: it holds
			// the protected home (Status lists this limit).
			for s, want := range map[string]bool{`echo ok > "$H/tmp/f"`: true, `echo ok > "$T/other"`: v.rootEntries} {
				if out, ok := run(t, sb, w.ws, s, "H="+home, "T="+w.tmp); ok != want {
					t.Errorf("%q: ok=%v want %v: %s", s, ok, want, out)
				}
			}
			out, _ := run(t, sb, w.ws, `echo x > "$H/config.toml"`, "H="+home)
			if d := sb.Explain(out, w.ws); d == nil || d.Reason != "protected_path" {
				t.Errorf("explained %q as %+v", out, d)
			}
		})
	}
}
