package checkpoint

import (
	"os/exec"
	"strings"
	"testing"
)

// A file that becomes a directory, a directory that becomes a file and a
// file that becomes a symlink, recorded by a full snapshot and by one
// limited to the paths involved, are all taken back byte for byte.
func TestTypeChangesAreRecordedAndRestored(t *testing.T) {
	t.Parallel()
	needGit(t)
	for _, paths := range [][]string{nil, {"x", "x/inner", "y", "y/a", "y/b", "z"}} {
		t.Run(map[bool]string{true: "full", false: "limited"}[paths == nil], func(t *testing.T) {
			t.Parallel()
			ws, home := t.TempDir(), t.TempDir()
			write(t, ws, "x", "a file\n", 0o644)
			write(t, ws, "y/a", "y a\n", 0o644)
			write(t, ws, "y/b", "y b\n", 0o755)
			write(t, ws, "z", "plain\n", 0o644)
			write(t, ws, "keep.txt", "keep\n", 0o644)
			s := mustOpen(t, home, ws)
			before, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := fingerprint(t, ws)
			sh(t, ws, `rm x && mkdir x && printf 'inner\n' > x/inner && rm -r y && printf 'now a file\n' > y && rm z && ln -s keep.txt z`)
			changed := fingerprint(t, ws)
			after, err := s.SnapshotPaths(ctx, paths)
			if err != nil {
				t.Fatal(err)
			}
			changes, _ := s.Changes(ctx, before.Tree, after.Tree)
			var got []string
			for _, c := range changes {
				got = append(got, c.Kind+" "+c.Path)
			}
			if strings.Join(got, ", ") != "deleted x, added x/inner, added y, deleted y/a, deleted y/b, type_changed z" {
				t.Fatalf("changes: %s", strings.Join(got, ", "))
			}
			plan, err := s.PlanRestore(ctx, before.Tree, after.Tree)
			if err != nil || len(plan.Conflicts) != 0 {
				t.Fatalf("%v %+v", err, plan.Conflicts)
			}
			if _, err := s.Apply(ctx, plan, before.Tree, false); err != nil {
				t.Fatal(err)
			}
			if got := fingerprint(t, ws); got != want {
				t.Fatalf("not restored byte for byte:\n got %s\nwant %s", got, want)
			}
			// And forward again: the restore's own before and after.
			back, err := s.PlanRestore(ctx, plan.Now.Tree, before.Tree)
			if err != nil || len(back.Conflicts) != 0 {
				t.Fatalf("%v %+v", err, back.Conflicts)
			}
			if _, err := s.Apply(ctx, back, plan.Now.Tree, false); err != nil {
				t.Fatal(err)
			}
			if got := fingerprint(t, ws); got != changed {
				t.Fatalf("the restore taken back:\n got %s\nwant %s", got, changed)
			}
		})
	}
}

// A repository nested in the workspace (not a submodule of it) is the
// user's own: listed as skipped, never recorded or restored.
// README.md "Undo": a repository nested in the folder (not a submodule) is skipped and named
func TestNestedRepositoryIsSkipped(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.txt", "a\n", 0o644)
	write(t, ws, "vendor/lib/x.go", "package lib\n", 0o644)
	sh(t, ws+"/vendor/lib", "git init -q")
	s := mustOpen(t, home, ws)
	snap, err := s.Snapshot(ctx)
	if err != nil || len(snap.Skipped) != 1 || snap.Skipped[0].Path != "vendor/lib/" {
		t.Fatalf("%v %+v", err, snap.Skipped)
	}
	out, _ := exec.Command("git", "--git-dir", s.Dir(), "ls-tree", "-r", "--name-only", snap.Tree).Output()
	if string(out) != "a.txt\n" {
		t.Fatalf("recorded %q", out)
	}
	if again, err := s.Snapshot(ctx); err != nil || again.Tree != snap.Tree || len(again.Skipped) != 0 {
		t.Fatalf("a second snapshot: %v %+v", err, again)
	}
}
