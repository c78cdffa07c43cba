//go:build unix

package confine

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// benchTree is a 4 KB file four directories below the root, the shape of a
// source file in a repository.
func benchTree(b *testing.B) (root, rel string) {
	b.Helper()
	root, _ = filepath.EvalSymlinks(b.TempDir())
	rel = "internal/tools/file/x.go"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), make([]byte, 4096), 0o644); err != nil {
		b.Fatal(err)
	}
	return root, rel
}

// BenchmarkReadFile compares reading a small file by path (what File did
// before: os.Open + read) with the confined open (one openat2 on Linux) and
// the portable per-component openat walk. Each iteration runs all three, so
// load drift on a shared machine hits them alike; the metrics are the mean
// time of each.
func BenchmarkReadFile(b *testing.B) {
	root, rel := benchTree(b)
	abs := filepath.Join(root, rel)
	r, err := OpenRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 8192)
	var byPath, confined, walk time.Duration
	for b.Loop() {
		t0 := time.Now()
		f, err := os.Open(abs)
		if err != nil {
			b.Fatal(err)
		}
		readClose(b, f, buf)
		t1 := time.Now()
		if f, err = r.Open(rel); err != nil {
			b.Fatal(err)
		}
		readClose(b, f, buf)
		t2 := time.Now()
		fd, err := walkOpen(r.h.fd, rel, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			b.Fatal(err)
		}
		readClose(b, os.NewFile(uintptr(fd), abs), buf)
		t3 := time.Now()
		byPath, confined, walk = byPath+t1.Sub(t0), confined+t2.Sub(t1), walk+t3.Sub(t2)
	}
	report(b, "by-path", byPath)
	report(b, "confined", confined)
	report(b, "walk", walk)
	b.ReportMetric(float64(confined)/float64(byPath), "confined/by-path")
}

func report(b *testing.B, name string, d time.Duration) {
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), name+"-ns/op")
}

func readClose(b *testing.B, f *os.File, buf []byte) {
	if _, err := f.Read(buf); err != nil && err != io.EOF {
		b.Fatal(err)
	}
	f.Close()
}

// BenchmarkWriteAtomic compares the atomic replace by path (os.CreateTemp in
// the directory, write, chmod, fsync, rename: what File did before) with the
// confined one (the same steps through the directory's descriptor),
// interleaved like BenchmarkReadFile.
func BenchmarkWriteAtomic(b *testing.B) {
	root, rel := benchTree(b)
	abs := filepath.Join(root, rel)
	data := make([]byte, 4096)
	r, err := OpenRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var byPath, confined time.Duration
	for b.Loop() {
		t0 := time.Now()
		tmp, err := os.CreateTemp(filepath.Dir(abs), ".x.go.cw-tmp-*")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fill(tmp, data, 0o644, true); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp.Name(), abs); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := r.WriteAtomic(rel, data, 0o644); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		byPath, confined = byPath+t1.Sub(t0), confined+t2.Sub(t1)
	}
	report(b, "by-path", byPath)
	report(b, "confined", confined)
	b.ReportMetric(float64(confined)/float64(byPath), "confined/by-path")
}
