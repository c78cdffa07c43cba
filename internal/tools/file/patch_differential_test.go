package file

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
)

// The differential flags point the history replay at any repository
// (scripts/differential.sh passes them); by default it replays this
// project's own history.
var (
	diffRepo = flag.String("differential.repo", "", "git repository whose history TestPatchDifferentialHistory replays (default: this project's)")
	diffMax  = flag.Int("differential.max", 15, "newest first-parent commits TestPatchDifferentialHistory replays")
)

// patchTally counts the outcomes of a replay.
type patchTally struct {
	agree, refused, bothRefuse, unrepresentable, empty int
	disagree                                           []string
}

func (c patchTally) String() string {
	return fmt.Sprintf("agree=%d disagree=%d refused-as-unsupported=%d both-refuse=%d not-json-text=%d empty=%d",
		c.agree, len(c.disagree), c.refused, c.bothRefuse, c.unrepresentable, c.empty)
}

// diffVariant is one way of producing the patch from git.
type diffVariant struct {
	name      string
	diffArgs  []string
	applyArgs []string
}

var fixtureVariants = []diffVariant{
	{"renames", []string{"-M"}, nil},
	{"no-renames -U0", []string{"--no-renames", "-U0"}, []string{"--unidiff-zero"}},
	{"copies -U1", []string{"-C", "-C", "-U1"}, nil},
}

// TestPatchDifferentialFixture applies `git diff A B` for every consecutive
// pair of the fixture history (three ways of diffing) with File patch and
// compares the resulting tree with B's. Binary and symlink changes must be
// refused whole; nothing may disagree.
// README.md "Development": File patch agrees with git apply over a fixture history.
func TestPatchDifferentialFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: replays the fixture history through patch against git; make test runs it (go test without -short)")
	}
	t.Parallel()
	r := gitfixture.History(t)
	commits := append([]string{r.EmptyTree()}, r.Commits("HEAD", 0)...)
	c := replayPatches(t, r, commits, fixtureVariants)
	t.Logf("fixture: %s", c)
	for _, d := range c.disagree {
		t.Error(d)
	}
	// Everything but the refused, unrepresentable and empty pairs applies;
	// the fixture has at least this many of each kind.
	if c.agree < 15 || c.refused < 6 || c.unrepresentable < 3 {
		t.Errorf("the fixture no longer exercises every case: %s", c)
	}
}

// TestPatchDifferentialHistory does the same over the newest commits of a
// real repository: this project's own, or -differential.repo.
func TestPatchDifferentialHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: replays a real history through patch against git; make test runs it (go test without -short)")
	}
	t.Parallel()
	src := *diffRepo
	if src == "" {
		src = e2e.ModuleRoot(t)
	}
	if !gitfixture.IsRepo(t, src) {
		e2e.Missing(t, src+" is not a git repository, so there is no real history to replay")
	}
	r := gitfixture.Clone(t, src)
	commits := r.Commits("HEAD", *diffMax+1)
	if len(commits) < 2 {
		e2e.Missing(t, "the repository has fewer than two commits (a shallow clone?)")
	}
	c := replayPatches(t, r, commits, fixtureVariants[:2])
	report("patch", src, len(commits)-1, c.String())
	for _, d := range c.disagree {
		t.Error(d)
	}
}

// report prints a differential result line scripts/differential.sh
// collects.
func report(action, repo string, commits int, counts string) {
	if testing.Verbose() || *diffRepo != "" {
		fmt.Printf("DIFFERENTIAL %-8s repo=%s commits=%d %s\n", action, repo, commits, counts)
	}
}

var unsupportedChange = regexp.MustCompile(`(?m)^(GIT binary patch|Binary files .* differ|(new|old|deleted file|new file) mode 1[26]0000|index \S+ 1[26]0000)$`)

// replayPatches applies each consecutive pair's diff in a scratch worktree.
func replayPatches(t *testing.T, r *gitfixture.Repo, commits []string, variants []diffVariant) patchTally {
	wt := r.Worktree("HEAD")
	ws := tools.Canonical(wt)
	tool := New(Options{Writable: true, Patch: true, ReadStamps: NewReadStamps()})
	var c patchTally
	for i := 1; i < len(commits); i++ {
		a, b := commits[i-1], commits[i]
		want := strings.TrimSpace(r.Run("rev-parse", b+"^{tree}"))
		for _, v := range variants {
			diff := r.Run(append(append([]string{"diff", "--no-color", "--no-ext-diff"}, v.diffArgs...), a, b)...)
			switch {
			case diff == "":
				c.empty++
				continue
			case !utf8.ValidString(diff):
				c.unrepresentable++ // a JSON string cannot carry it to the tool
				continue
			}
			label := fmt.Sprintf("%s..%s (%s)", short(a), short(b), v.name)
			resetTo(t, r, wt, a)
			res, err := tool.Execute(t.Context(), &tools.Context{Workspace: ws}, patchInput(diff))
			ok := err == nil && res.Success
			got := treeOf(t, r, wt)
			if unsupportedChange.MatchString(diff) {
				if ok || got != treeAt(r, a) {
					c.disagree = append(c.disagree, label+": a binary or symlink change was not refused whole")
				} else {
					c.refused++
				}
				continue
			}
			if ok && got == want {
				c.agree++
				continue
			}
			ref := gitApplyTree(t, r, wt, a, diff, v.applyArgs)
			switch {
			case !ok && ref == "":
				c.bothRefuse++
			case ok && got == ref:
				c.agree++ // git apply lands on the same tree (not B's: a checkout filter differs)
			case !ok:
				c.disagree = append(c.disagree, fmt.Sprintf("%s: refused where git apply succeeds: %s", label, errOrContent(err, res)))
			default:
				c.disagree = append(c.disagree, fmt.Sprintf("%s: reported success but the tree differs from B:\n%s", label,
					r.Run("diff", "--stat", want, got)))
			}
		}
	}
	return c
}

func patchInput(diff string) json.RawMessage {
	in, _ := json.Marshal(map[string]any{"action": "patch", "patch": diff})
	return in
}

func errOrContent(err error, res tools.Result) string {
	if err != nil {
		return tools.AsError(err).Render(Name)
	}
	return res.Content
}

func short(rev string) string { return rev[:min(len(rev), 10)] }

func treeAt(r *gitfixture.Repo, rev string) string {
	return strings.TrimSpace(r.Run("rev-parse", rev+"^{tree}"))
}

// resetTo makes the worktree exactly rev's checkout, untracked files gone.
func resetTo(t *testing.T, r *gitfixture.Repo, wt, rev string) {
	t.Helper()
	for _, args := range [][]string{{"read-tree", "-u", "--reset", rev}, {"clean", "-fdxq"}} {
		if _, err := r.RunIn(wt, args...); err != nil {
			t.Fatal(err)
		}
	}
}

// treeOf stages the whole worktree and returns its tree.
func treeOf(t *testing.T, r *gitfixture.Repo, wt string) string {
	t.Helper()
	if _, err := r.RunIn(wt, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	out, err := r.RunIn(wt, "write-tree")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// gitApplyTree is the reference: the tree `git apply` makes from the same
// diff on the same checkout, or "" when git apply refuses it.
func gitApplyTree(t *testing.T, r *gitfixture.Repo, wt, base, diff string, args []string) string {
	t.Helper()
	resetTo(t, r, wt, base)
	p := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(p, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RunIn(wt, append(append([]string{"apply", "--whitespace=nowarn"}, args...), p)...); err != nil {
		return ""
	}
	return treeOf(t, r, wt)
}
