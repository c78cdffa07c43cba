//go:build unix

package checkpoint

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gatedGit is a git that stops once, at the first run of a given git
// command after arm: it says so on ready and goes on only when release is
// written (or it is killed). The store's environment is git's own, so the
// paths are written into the script.
type gatedGit struct {
	t                        *testing.T
	bin, dir, ready, release string
}

func newGatedGit(t *testing.T, command string) *gatedGit {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip(err) // needGit ran first
	}
	dir := t.TempDir()
	g := &gatedGit{t: t, bin: filepath.Join(dir, "git"), dir: dir,
		ready: filepath.Join(dir, "ready"), release: filepath.Join(dir, "release")}
	for _, p := range []string{g.ready, g.release} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\n" +
		"case \" $* \" in *\" " + command + " \"*)\n" +
		"  if [ -e '" + dir + "/armed' ] && mkdir '" + dir + "/taken' 2>/dev/null; then\n" +
		"    echo ready > '" + g.ready + "'\n" +
		"    read x < '" + g.release + "'\n" +
		"  fi;;\nesac\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(g.bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *gatedGit) arm() {
	if err := os.WriteFile(filepath.Join(g.dir, "armed"), nil, 0o600); err != nil {
		g.t.Fatal(err)
	}
}

// waitReady returns once the gated command has stopped at the gate.
func (g *gatedGit) waitReady() {
	if _, err := os.ReadFile(g.ready); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gatedGit) open() {
	if err := os.WriteFile(g.release, []byte("go\n"), 0o600); err != nil {
		g.t.Fatal(err)
	}
}

func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not end", what)
	}
}

func read(t *testing.T, ws, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The turn's base snapshot runs while the model is asked (Start); a first
// write that arrives before it has finished waits for it, then looks again
// at the files it names: /undo then puts back exactly what was there
// before the write — the user's edit made between the turns (in the base)
// and the one made to a named file while the model was asked (seen by the
// second look), byte for byte.
// README.md "Undo": the turn's first change waits for the background record and keeps edits made while the model thinks
func TestAFirstWriteWaitsForTheTurnsBase(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	write(t, ws, "b.txt", "b0\n", 0o644)
	write(t, ws, "c.txt", "c0\n", 0o644)
	g := newGatedGit(t, "write-tree")
	s, err := Open(home, ws, Options{Git: g.bin})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(ctx); err != nil { // the last turn's state
		t.Fatal(err)
	}
	r := NewRecorder(s)
	r.OnError = func(err error) { t.Error(err) }

	write(t, ws, "a.txt", "a by the user between turns\n", 0o644)
	g.arm()
	r.Start(ctx, "t1")
	g.waitReady() // the base has listed and hashed the tree, not yet written its tree
	write(t, ws, "b.txt", "b by the user while the model was asked\n", 0o644)
	began := make(chan struct{})
	go func() {
		defer close(began)
		r.BeginPaths(ctx, "sess", "t1", "edit a and b", 0, []string{"a.txt", "b.txt"})
	}()
	select {
	case <-began:
		t.Fatal("the first write's checkpoint did not wait for the base")
	default:
	}
	before := fingerprint(t, ws)
	g.open()
	waitDone(t, began, "the first write's checkpoint")

	write(t, ws, "a.txt", "a by the agent\n", 0o644)
	write(t, ws, "b.txt", "b by the agent\n", 0o644)
	r.CallChanged(ctx, "t1", "w1", "File", []string{"a.txt", "b.txt"})
	r.Finish("t1")
	u, err := r.Undo(ctx, "sess", 1, false)
	if err != nil || !u.Applied || len(u.Restored) != 2 {
		t.Fatalf("undo: %v %+v", err, u)
	}
	if got := fingerprint(t, ws); got != before {
		t.Fatalf("after undo:\n%s\nwant:\n%s", got, before)
	}
	if a, b := read(t, ws, "a.txt"), read(t, ws, "b.txt"); a != "a by the user between turns\n" || b != "b by the user while the model was asked\n" {
		t.Fatalf("a=%q b=%q", a, b)
	}
}

// A turn that ends without changing anything cancels its base snapshot:
// the goroutine ends; stopped while it only lists the tree, git is
// killed; stopped while it writes the side index, the write is finished
// first — either way no lock is left behind and the next turn records
// and undoes as usual.
func TestACancelledTurnsBaseEndsAndLeavesTheStoreWhole(t *testing.T) {
	t.Parallel()
	needGit(t)
	for _, tt := range []struct {
		gate     string
		finishes bool // the snapshot completes despite the cancel
	}{
		{"ls-files", false},
		{"update-index", true},
	} {
		t.Run(tt.gate, func(t *testing.T) {
			t.Parallel()
			ws, home := t.TempDir(), t.TempDir()
			write(t, ws, "a.txt", "a0\n", 0o644)
			write(t, ws, "sub/b.txt", "b0\n", 0o644)
			g := newGatedGit(t, tt.gate)
			s, err := Open(home, ws, Options{Git: g.bin})
			if err != nil {
				t.Fatal(err)
			}
			r := NewRecorder(s)
			r.OnError = func(err error) { t.Error(err) }
			g.arm()
			r.Start(ctx, "t1")
			g.waitReady()
			r.mu.Lock()
			b := r.base
			r.mu.Unlock()
			finished := make(chan struct{})
			go func() {
				r.Finish("t1") // the turn is over: cancelled, or it only talked
				close(finished)
			}()
			if tt.finishes {
				select {
				case <-finished:
					t.Fatal("Finish returned while the base was still writing the side index")
				case <-time.After(50 * time.Millisecond):
				}
				g.open()
			}
			waitDone(t, finished, "the turn's Finish")
			select {
			case <-b.done:
			default:
				t.Fatal("Finish returned before the base snapshot's goroutine ended")
			}
			if (b.err == nil) != tt.finishes {
				t.Fatalf("base snapshot: %v", b.err)
			}
			if _, err := os.Stat(s.index + ".lock"); !os.IsNotExist(err) {
				t.Fatalf("index lock left behind: %v", err)
			}
			r.mu.Lock()
			if r.base != nil || r.cur != nil {
				t.Errorf("recorder still holds %+v %+v", r.base, r.cur)
			}
			r.mu.Unlock()

			r.Start(ctx, "t2")
			r.BeginPaths(ctx, "sess", "t2", "edit a", 0, []string{"a.txt"})
			write(t, ws, "a.txt", "a1\n", 0o644)
			r.CallChanged(ctx, "t2", "w1", "File", []string{"a.txt"})
			r.Finish("t2")
			u, err := r.Undo(ctx, "sess", 1, false)
			if err != nil || !u.Applied || strings.Join(changed(u.Restored), ",") != "a.txt" || read(t, ws, "a.txt") != "a0\n" {
				t.Fatalf("next turn's undo: %v %+v, a=%q", err, u, read(t, ws, "a.txt"))
			}
		})
	}
}

func changed(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}
