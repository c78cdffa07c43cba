package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/treestate"
)

var ctx = context.Background()

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e2e.Missing(t, "git is not installed")
	}
}

func fingerprint(t *testing.T, root string, skip ...string) string {
	return treestate.Fingerprint(t, root, skip...)
}

func write(t *testing.T, root, rel, body string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
}

func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

func seed(t *testing.T, ws string) {
	write(t, ws, "main.go", "package main\n\nfunc main() {}\n", 0o644)
	write(t, ws, "run.sh", "#!/bin/sh\necho run\n", 0o644)
	write(t, ws, "doomed.txt", "delete me\n", 0o644)
	write(t, ws, "pkg/a.go", "package pkg\n", 0o644)
	write(t, ws, "pkg/sub/b.go", "package sub\n", 0o644)
	write(t, ws, "logo.bin", "\x00\x01\x02\xff\xfe binary", 0o644)
	write(t, ws, ".gitignore", "build/\n", 0o644)
	write(t, ws, "build/out.o", "ignored output\n", 0o644)
	os.Symlink("main.go", filepath.Join(ws, "link.go"))
}

// One turn: a File-style edit, sed -i, a new file, a deleted file, a renamed
// directory, a binary rewrite, chmod +x and a retargeted symlink — all
// reverted byte for byte, mode bits too.
// README.md "Undo": a turn is taken back byte for byte, in a repository or not; its .git and ignored files untouched
func TestUndoRevertsEverythingATurnChanged(t *testing.T) {
	t.Parallel()
	needGit(t)
	for _, repo := range []bool{false, true} {
		t.Run(fmt.Sprintf("git=%v", repo), func(t *testing.T) {
			t.Parallel()
			ws, home := t.TempDir(), t.TempDir()
			seed(t, ws)
			if repo {
				sh(t, ws, "git init -q && git add -A && git -c user.name=u -c user.email=u@x commit -qm init && git config core.bare false")
			}
			var gitBefore string
			if repo {
				gitBefore = fingerprint(t, filepath.Join(ws, ".git"))
			}
			s, err := Open(home, ws, Options{})
			if err != nil {
				t.Fatal(err)
			}
			before, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := fingerprint(t, ws, ".git")
			write(t, ws, "main.go", "package main\n\nfunc main() { println(1) }\n", 0o644)
			sh(t, ws, `sed -i 's/echo run/echo ran/' run.sh && chmod +x run.sh && rm doomed.txt && mv pkg lib && printf 'new\n' > added.txt`)
			write(t, ws, "logo.bin", "\xff\xff\x00 changed binary", 0o644)
			os.Remove(filepath.Join(ws, "link.go"))
			os.Symlink("added.txt", filepath.Join(ws, "link.go"))
			after, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			changes, _ := s.Changes(ctx, before.Tree, after.Tree)
			var got []string
			for _, c := range changes {
				got = append(got, c.Kind+" "+c.Path)
			}
			if strings.Join(got, ", ") != "added added.txt, deleted doomed.txt, added lib/a.go, added lib/sub/b.go, modified link.go, "+
				"modified logo.bin, modified main.go, deleted pkg/a.go, deleted pkg/sub/b.go, modified run.sh" {
				t.Errorf("changes: %s", strings.Join(got, ", "))
			}
			plan, err := s.PlanRestore(ctx, before.Tree, after.Tree)
			if err != nil || len(plan.Conflicts) != 0 {
				t.Fatalf("%v %+v", err, plan.Conflicts)
			}
			if _, err := s.Apply(ctx, plan, before.Tree, false); err != nil {
				t.Fatal(err)
			}
			if got := fingerprint(t, ws, ".git"); got != want {
				t.Errorf("not restored byte for byte:\n got %s\nwant %s", got, want)
			}
			if repo {
				if got := fingerprint(t, filepath.Join(ws, ".git")); got != gitBefore {
					t.Errorf("the user's .git changed:\n%s\n---\n%s", gitBefore, got)
				}
			}
			// The ignored build output was never recorded, so never touched.
			if data, _ := os.ReadFile(filepath.Join(ws, "build/out.o")); string(data) != "ignored output\n" {
				t.Error("an ignored file was touched")
			}
		})
	}
}

func TestTwoTurnsUndoneInOrderAndARestoreIsUndoable(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "notes.md", "v0\n", 0o644)
	s, _ := Open(home, ws, Options{})
	s0, _ := s.Snapshot(ctx)
	write(t, ws, "notes.md", "v1\n", 0o644)
	s1, _ := s.Snapshot(ctx)
	write(t, ws, "notes.md", "v2\n", 0o644)
	write(t, ws, "extra.md", "x\n", 0o644)
	s2, _ := s.Snapshot(ctx)
	// Undo turn 2, then turn 1.
	for _, step := range []struct{ to, from, want string }{{s1.Tree, s2.Tree, "v1\n"}, {s0.Tree, s1.Tree, "v0\n"}} {
		plan, err := s.PlanRestore(ctx, step.to, step.from)
		if err != nil || len(plan.Conflicts) != 0 {
			t.Fatalf("%v %+v", err, plan.Conflicts)
		}
		s.Apply(ctx, plan, step.to, false)
		if data, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(data) != step.want {
			t.Fatalf("notes.md = %q, want %q", data, step.want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "extra.md")); !os.IsNotExist(err) {
		t.Error("extra.md survived undoing the turn that created it")
	}
	// A restore to the first state was itself recorded: undo it.
	write(t, ws, "notes.md", "v3\n", 0o644)
	cur, _ := s.Snapshot(ctx)
	plan, _ := s.PlanRestore(ctx, s0.Tree, cur.Tree)
	s.Apply(ctx, plan, s0.Tree, false)
	back, _ := s.PlanRestore(ctx, plan.Now.Tree, s0.Tree)
	s.Apply(ctx, back, plan.Now.Tree, false)
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(data) != "v3\n" {
		t.Fatalf("undoing the restore: %q", data)
	}
}

func TestOutsideChangeIsAConflict(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	write(t, ws, "b.txt", "b0\n", 0o644)
	s, _ := Open(home, ws, Options{})
	before, _ := s.Snapshot(ctx)
	write(t, ws, "a.txt", "a1 by the agent\n", 0o644)
	write(t, ws, "b.txt", "b1 by the agent\n", 0o644)
	after, _ := s.Snapshot(ctx)
	write(t, ws, "b.txt", "b2 by the user in their editor\n", 0o644)
	plan, err := s.PlanRestore(ctx, before.Tree, after.Tree)
	if err != nil || len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "b.txt" || len(plan.Restore) != 1 {
		t.Fatalf("%v %+v", err, plan)
	}
	s.Apply(ctx, plan, before.Tree, false)
	a, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	b, _ := os.ReadFile(filepath.Join(ws, "b.txt"))
	if string(a) != "a0\n" || string(b) != "b2 by the user in their editor\n" {
		t.Fatalf("a=%q b=%q: the user's change was overwritten or the agent's kept", a, b)
	}
	s.Apply(ctx, plan, before.Tree, true)
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "b0\n" {
		t.Errorf("forced restore: b=%q", b)
	}
}

// README.md "Undo": files over the size limit are skipped, named, and never stored
func TestOversizedFilesAreSkippedWithAReceipt(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "small.txt", "s\n", 0o644)
	s, _ := Open(home, ws, Options{MaxFile: 1024})
	s.Snapshot(ctx)
	write(t, ws, "huge.dat", strings.Repeat("x", 4096), 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil || len(snap.Skipped) != 1 || snap.Skipped[0].Path != "huge.dat" || !strings.Contains(snap.Skipped[0].Reason, "over the 1024-byte limit") {
		t.Fatalf("%v %+v", err, snap.Skipped)
	}
	if out, _ := exec.Command("git", "--git-dir", s.Dir(), "ls-tree", "-r", "--name-only", snap.Tree).Output(); strings.Contains(string(out), "huge.dat") {
		t.Error("the oversized file was stored")
	}
}

// The recorder as the engine drives it: two turns, undone in order, and a
// restore that is undone in its turn.
func TestRecorderUndoAndRestore(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a0\n", 0o644)
	s, _ := Open(home, ws, Options{})
	r := NewRecorder(s)
	var errs []error
	r.OnError = func(err error) { errs = append(errs, err) }
	turn := func(id, body string) {
		r.Begin(ctx, "sess", id, "make a "+body, 0)
		write(t, ws, "a.txt", body+"\n", 0o644)
		r.Call(ctx, id, id+"-call", "File")
		write(t, ws, id+".txt", "made by "+id+"\n", 0o644)
		r.Call(ctx, id, id+"-sh", "Bash")
		r.Finish(id)
	}
	turn("t1", "a1")
	turn("t2", "a2")
	r.Begin(ctx, "sess", "t3", "read only", 0)
	r.Finish("t3") // changed nothing: not logged
	turns, _ := r.Turns("sess")
	if len(turns) != 2 || len(turns[1].Calls) != 2 || turns[1].Calls[1].Tool != "Bash" || turns[1].Calls[1].Changes[0].Path != "t2.txt" {
		t.Fatalf("%+v", turns)
	}
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(ws, p)); return string(b) }
	if u, err := r.Undo(ctx, "sess", 1, false); err != nil || !u.Applied || read("a.txt") != "a1\n" {
		t.Fatalf("undo t2: %v %+v %q", err, u, read("a.txt"))
	}
	if u, err := r.Undo(ctx, "sess", 1, false); err != nil || !u.Applied || read("a.txt") != "a0\n" || read("t1.txt") != "" {
		t.Fatalf("undo t1: %v %+v", err, u)
	}
	if _, err := r.Undo(ctx, "sess", 1, false); err != ErrNothingToUndo {
		t.Fatalf("a third undo: %v", err)
	}
	// Two more turns, then a restore to before the first of them, then an
	// undo of that restore.
	turn("t4", "a4")
	turn("t5", "a5")
	if u, err := r.RestoreBefore(ctx, "sess", "t4", false); err != nil || !u.Applied || read("a.txt") != "a0\n" || read("t5.txt") != "" {
		t.Fatalf("restore: %v %+v", err, u)
	}
	if _, err := r.Undo(ctx, "sess", 1, false); err != nil || read("a.txt") != "a5\n" || read("t4.txt") != "made by t4\n" {
		t.Fatalf("undo the restore: %v %q", err, read("a.txt"))
	}
	// t4 and t5 count again: the next undo takes t5 back.
	if u, err := r.Undo(ctx, "sess", 1, false); err != nil || u.Turns[0].TurnID != "t5" || read("a.txt") != "a4\n" {
		t.Fatalf("undo after undoing the restore: %v %+v", err, u)
	}
	if len(errs) > 0 {
		t.Errorf("recording errors: %v", errs)
	}
}
