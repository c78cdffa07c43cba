package git

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnifiedDiffMatchesGit compares the native diff engine with
// `git diff --no-index` on random edits of files built from a few
// repeated, indented lines (the ambiguous cases where placement matters).
func TestUnifiedDiffMatchesGit(t *testing.T) {
	t.Parallel()
	gitBin := requireGit(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	pool := []string{"a\n", "b\n", "\n", "}\n", "\tx := 1\n", "func f() {\n", "  if y {\n", "  }\n", "c\n", "\treturn\n"}
	for n := range 300 {
		a := randomLines(rng, pool, rng.Intn(30))
		b := mutate(rng, pool, a)
		if rng.Intn(5) == 0 && len(b) > 0 && b[len(b)-1] != "\n" {
			b[len(b)-1] = strings.TrimSuffix(b[len(b)-1], "\n")
		}
		ctx := rng.Intn(4)
		want := gitNoIndex(t, gitBin, dir, a, b, ctx)
		got := unifiedDiff(a, b, ctx)
		if got != want {
			t.Fatalf("case %d (ctx %d): a=%q\nb=%q\n--- git\n%s--- native\n%s", n, ctx, strings.Join(a, ""), strings.Join(b, ""), want, got)
		}
	}
}

func randomLines(rng *rand.Rand, pool []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = pool[rng.Intn(len(pool))]
	}
	return out
}

func mutate(rng *rand.Rand, pool []string, a []string) []string {
	b := append([]string(nil), a...)
	for range rng.Intn(5) + 1 {
		switch pos := rng.Intn(len(b) + 1); rng.Intn(3) {
		case 0:
			b = append(b[:pos], append(randomLines(rng, pool, rng.Intn(4)+1), b[pos:]...)...)
		case 1:
			if pos < len(b) {
				b = append(b[:pos], b[min(len(b), pos+rng.Intn(3)+1):]...)
			}
		default:
			if pos < len(b) {
				b[pos] = pool[rng.Intn(len(pool))]
			}
		}
	}
	return b
}

func gitNoIndex(t *testing.T, gitBin, dir string, a, b []string, ctx int) string {
	t.Helper()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(strings.Join(a, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(strings.Join(b, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gitBin, "diff", "--no-index", "--no-color", fmt.Sprintf("--unified=%d", ctx), pa, pb)
	out, _ := cmd.Output()
	s := string(out)
	if i := strings.Index(s, "\n@@"); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func requireGit(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git binary not available")
	}
	return bin
}

// TestUnifiedDiffMatchesGitOnLargeFiles exercises the cost limits and the
// handling of very common lines on files of thousands of lines.
func TestUnifiedDiffMatchesGitOnLargeFiles(t *testing.T) {
	t.Parallel()
	gitBin := requireGit(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(11))
	var pool []string
	for i := range 40 {
		pool = append(pool, fmt.Sprintf("line %d\n", i))
	}
	pool = append(pool, "\n", "}\n", "\n", "}\n")
	for n := range 12 {
		a := randomLines(rng, pool, 300+rng.Intn(3000))
		b := append([]string(nil), a...)
		for range rng.Intn(400) + 1 {
			b = mutate(rng, pool, b)
		}
		if want, got := gitNoIndex(t, gitBin, dir, a, b, 3), unifiedDiff(a, b, 3); got != want {
			t.Fatalf("case %d (%d/%d lines):\n%s", n, len(a), len(b), lineDiff(want, got))
		}
	}
}
