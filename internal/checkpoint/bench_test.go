package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/cputime"
)

// BenchmarkSnapshotAfterSmallTurn: a 20,000-file tree (200 directories of
// 100) where a turn rewrote 5 files of 2 KB. "full" looks at the whole tree
// through the side index's stat cache (every turn's base, taken as it
// starts, and the one after a shell command); "paths" looks only at the five files
// (after a File call, which names them; target under 50 ms); "undo" is
// the /undo of such a turn through the recorder (target under 100 ms).
// `git diff-files` and `git status` of the same tree as the user's own
// repository are the references, in the same run.
//
// cpu-ms/op is the user+system CPU time of this process and its git
// children per op: a loaded machine inflates wall time far more.
// store-B/op is how much the side store grew per snapshot, changed-B/op
// the bytes the turn wrote.
func BenchmarkSnapshotAfterSmallTurn(b *testing.B) {
	ws, home := b.TempDir(), b.TempDir()
	// An hour old, as a checked-out tree is: files as new as the index are
	// "racily clean" and git would re-read every one of them.
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 20000; i++ {
		p := filepath.Join(ws, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package d\n\nconst N%d = %d\n", i, i)), 0o644)
		os.Chtimes(p, old, old)
	}
	s, err := Open(home, ws, Options{})
	if err != nil {
		b.Skip(err)
	}
	if _, err := s.Snapshot(ctx); err != nil {
		b.Fatal(err)
	}
	paths := make([]string, 5)
	for j := range paths {
		paths[j] = fmt.Sprintf("d010/f%05d.go", 1000+j)
	}
	var changed, seq int64
	touch := func(what string) { // content never seen before, so every op stores something new
		seq++
		for _, p := range paths {
			body := strings.Repeat(fmt.Sprintf("// %s %d of %s\n", what, seq, p), 128)[:2048]
			os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644)
			changed += int64(len(body))
		}
	}
	r := NewRecorder(s)
	r.OnError = func(err error) { b.Fatal(err) }
	// A checkpoint as the engine takes it after a call: a File call's
	// names its paths (CallChanged), a shell command's looks at the whole
	// tree (Call); either also lists what the call changed.
	checkpoint := func(name string, limited []string) {
		b.Run(name, func(b *testing.B) {
			size, changed0 := storeSize(s.Dir()), changed
			var cpu cpuMeter
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				id := fmt.Sprintf("%s-%d-%d", name, b.N, i)
				r.Begin(ctx, "sess", id, "edit five files", 0)
				touch(name)
				b.StartTimer()
				cpu.start()
				if limited != nil {
					r.CallChanged(ctx, id, "c", "File", limited)
				} else {
					r.Call(ctx, id, "c", "Bash")
				}
				cpu.stop()
				b.StopTimer()
				r.Finish(id)
				b.StartTimer()
			}
			cpu.report(b)
			b.ReportMetric(float64(storeSize(s.Dir())-size)/float64(b.N), "store-B/op")
			b.ReportMetric(float64(changed-changed0)/float64(b.N), "changed-B/op")
		})
	}
	checkpoint("full", nil)
	checkpoint("paths", paths)
	b.Run("undo", func(b *testing.B) { benchUndo(b, r, paths, touch) })
	gitReferences(b, ws, touch)
}

// benchUndo records a turn as the engine does (a full checkpoint before,
// one File call that names its five files after) and times its /undo.
func benchUndo(b *testing.B, r *Recorder, paths []string, touch func(string)) {
	var cpu cpuMeter
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := fmt.Sprintf("undo-%d-%d", b.N, i)
		r.Begin(ctx, "sess", id, "edit five files", 0)
		touch("turn")
		r.CallChanged(ctx, id, "c", "File", paths)
		r.Finish(id)
		b.StartTimer()
		cpu.start()
		u, err := r.Undo(ctx, "sess", 1, false)
		cpu.stop()
		if err != nil || !u.Applied || len(u.Restored) != len(paths) {
			b.Fatalf("%v %+v", err, u)
		}
	}
	cpu.report(b)
}

// gitReferences times `git diff-files` (the stat walk of the tracked
// files alone) and `git status` (that, and the walk for untracked files)
// of the tree as the user's own repository, after the same 5-file change.
func gitReferences(b *testing.B, ws string, touch func(string)) {
	gitDir := filepath.Join(b.TempDir(), "user.git")
	run := func(args ...string) { // diff-files and a refresh exit 1 when files differ
		cmd := exec.Command("git", append([]string{"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir, "GIT_WORK_TREE="+ws)
		if out, err := cmd.CombinedOutput(); err != nil && args[0] != "diff-files" && args[0] != "update-index" {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("add", "-A")
	run("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "init")
	for _, args := range [][]string{{"diff-files", "--name-only"}, {"status", "--porcelain"}} {
		b.Run("git-"+args[0], func(b *testing.B) {
			run("update-index", "--refresh", "-q")
			var cpu cpuMeter
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				touch(args[0])
				b.StartTimer()
				cpu.start()
				run(args...)
				cpu.stop()
			}
			cpu.report(b)
		})
	}
}

func storeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// cpuMeter adds up the CPU time this process and its waited-for children
// (git) use between start and stop, and reports it per op.
type cpuMeter struct{ total, at int64 }

func (c *cpuMeter) start() { c.at = int64(cputime.Process() + cputime.Children()) }
func (c *cpuMeter) stop()  { c.total += int64(cputime.Process()+cputime.Children()) - c.at }
func (c *cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(c.total)/1e6/float64(b.N), "cpu-ms/op")
}
