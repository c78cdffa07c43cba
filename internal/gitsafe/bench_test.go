package gitsafe_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// BenchmarkStatus runs `git status --porcelain` on a 200-file repository
// plainly and through gitsafe.Command (which first lists the filter drivers
// with `git config`), interleaved so load drift hits both alike.
func BenchmarkStatus(b *testing.B) {
	r := gitfixture.New(b)
	for i := range 200 {
		r.Write(fmt.Sprintf("d%d/f%d.txt", i%10, i), "x\n")
	}
	r.Commit("files")
	r.Write("d0/f0.txt", "changed\n")
	var plain, safe time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(r.Bin, "status", "--porcelain")
		cmd.Dir = r.Dir
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := gitsafe.Command(context.Background(), r.Bin, r.Dir, "status", "--porcelain").Run(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		plain, safe = plain+t1.Sub(t0), safe+t2.Sub(t1)
	}
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N), "plain-µs/op")
	b.ReportMetric(float64(safe.Microseconds())/float64(b.N), "gitsafe-µs/op")
	b.ReportMetric(float64(safe)/float64(plain), "gitsafe/plain")
}
