package checkpoint

import (
	"reflect"
	"testing"
)

// Call returns what the call changed, so the session can have the language
// servers check the files a command wrote.
func TestCallReturnsWhatTheCallChanged(t *testing.T) {
	t.Parallel()
	needGit(t)
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, "a.go", "package a\n", 0o644)
	write(t, ws, "b.go", "package b\n", 0o644)
	r := NewRecorder(mustOpen(t, home, ws))
	r.Begin(ctx, "sess", "t1", "run a command", 0)
	write(t, ws, "a.go", "package a // changed\n", 0o644)
	write(t, ws, "c.go", "package c\n", 0o644)
	got := r.Call(ctx, "t1", "c1", "Bash")
	want := []Change{{Path: "a.go", Kind: "modified"}, {Path: "c.go", Kind: "added"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Call returned %+v, want %+v", got, want)
	}
	if got := r.Call(ctx, "t1", "c2", "Bash"); len(got) != 0 {
		t.Fatalf("a call that changed nothing returned %+v", got)
	}
}
