package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSnapshotAfterSmallTurn: a 20,000-file tree where a turn touched 5
// files (target under 50 ms), and the undo of that turn (under 100 ms).
func BenchmarkSnapshotAfterSmallTurn(b *testing.B) {
	ws, home := b.TempDir(), b.TempDir()
	for i := 0; i < 20000; i++ {
		p := filepath.Join(ws, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst N%d = %d\n", i, i)), 0o644)
		// An hour old, as a checked-out tree is: files as new as the index
		// are "racily clean" and git would re-read every one of them.
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	s, err := Open(home, ws, Options{})
	if err != nil {
		b.Skip(err)
	}
	before, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("snapshot", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j := 0; j < 5; j++ {
				os.WriteFile(filepath.Join(ws, "d010", fmt.Sprintf("f%05d.go", 1000+j)), []byte(fmt.Sprintf("changed %d\n", i)), 0o644)
			}
			if _, err := s.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("undo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			for j := 0; j < 5; j++ {
				os.WriteFile(filepath.Join(ws, "d010", fmt.Sprintf("f%05d.go", 1000+j)), []byte(fmt.Sprintf("turn %d\n", i)), 0o644)
			}
			after, _ := s.Snapshot(ctx)
			b.StartTimer()
			plan, err := s.PlanRestore(ctx, before.Tree, after.Tree)
			if err != nil || len(plan.Restore) != 5 {
				b.Fatalf("%v %d", err, len(plan.Restore))
			}
			if _, err := s.Apply(ctx, plan, before.Tree, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
