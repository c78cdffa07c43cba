package git

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

// TestBlameRandomHistoriesMatchGit builds histories of random edits to one
// file made of a few repeated, indented lines — with side branches merged
// back, conflicts resolved by hand — and compares the go-git backend's
// --line-porcelain output with git's.
func TestBlameRandomHistoriesMatchGit(t *testing.T) {
	t.Parallel()
	pool := []string{"a\n", "b\n", "\n", "}\n", "\tx := 1\n", "func f() {\n", "  if y {\n", "  }\n", "c\n", "\treturn\n"}
	for seed := int64(1); seed <= 6; seed++ {
		f := randomHistory(t, rand.New(rand.NewSource(seed)), pool)
		want := f.git("blame", "--date=iso", "-L1,2000", "--line-porcelain", "HEAD", "--", "f.txt")
		res, err := New(Options{DisableCLI: true}).Execute(context.Background(), &tools.Context{Workspace: f.dir},
			json.RawMessage(`{"action":"blame","path":"f.txt","porcelain":true,"max_lines":2000}`))
		if err != nil || res.Content != want {
			t.Fatalf("seed %d: err %v\n%s", seed, err, lineDiff(want, res.Content))
		}
	}
}

func randomHistory(t *testing.T, rng *rand.Rand, pool []string) *fixture {
	f := newFixture(t)
	content := randomLines(rng, pool, 10+rng.Intn(30))
	f.write("f.txt", strings.Join(content, ""))
	f.commit("c0")
	for i := 1; i < 12; i++ {
		if rng.Intn(4) != 0 {
			content = mutate(rng, pool, content)
			f.write("f.txt", strings.Join(content, ""))
			f.commit(fmt.Sprintf("c%d", i))
			continue
		}
		branch := fmt.Sprintf("b%d", i)
		f.git("checkout", "-q", "-b", branch)
		side := mutate(rng, pool, content)
		f.write("f.txt", strings.Join(side, ""))
		f.commit("side " + branch)
		f.git("checkout", "-q", "main")
		f.write("f.txt", strings.Join(append(append([]string(nil), content...), randomLines(rng, pool, 2)...), ""))
		f.commit("main " + branch)
		f.clock++
		if _, err := f.gitIn(f.dir, "merge", "-q", "--no-edit", branch); err != nil {
			f.write("f.txt", strings.Join(mutate(rng, pool, side), ""))
			f.git("add", "f.txt")
			f.commitStaged("merge " + branch)
		}
		content = splitLines(f.git("show", ":f.txt"))
	}
	return f
}
