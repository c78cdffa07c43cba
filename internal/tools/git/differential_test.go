package git

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
)

// The differential flags point the replay at any repository
// (scripts/differential.sh passes them); by default it replays this
// project's own history.
var (
	diffRepo  = flag.String("differential.repo", "", "git repository whose history TestGitDifferentialHistory replays (default: this project's)")
	diffMax   = flag.Int("differential.max", 8, "newest commits TestGitDifferentialHistory replays")
	diffPaths = flag.Int("differential.paths", 3, "paths per commit TestGitDifferentialHistory asks show, log and blame about")
)

// diffCase is one model call and the git command line that answers the
// same question, run from the repository root with the path as a literal
// pathspec — how a person would ask git.
type diffCase struct {
	action string
	in     map[string]any
	ref    []string
}

// actionTally counts, per action and backend, the calls that agreed with
// git, those the go-git backend refused as needing the binary, and the
// disagreements.
type actionTally struct {
	counts   map[string]*[3]int // "action/backend" → agree, refused, disagree
	disagree []string
}

func newTally() *actionTally { return &actionTally{counts: map[string]*[3]int{}} }

func (t *actionTally) add(key string, kind int, detail string) {
	if t.counts[key] == nil {
		t.counts[key] = &[3]int{}
	}
	t.counts[key][kind]++
	if kind == 2 {
		t.disagree = append(t.disagree, detail)
	}
}

func (t *actionTally) lines() []string {
	keys := make([]string, 0, len(t.counts))
	for k := range t.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		c := t.counts[k]
		out[i] = fmt.Sprintf("%-16s agree=%d needs-git-binary=%d disagree=%d", k, c[0], c[1], c[2])
	}
	return out
}

// nativeRefusal ends every refusal of the go-git backend without a git
// binary to hand the call to: a documented "cannot, install git", never a
// different answer.
const nativeRefusal = "git is not installed or not in PATH, so nothing was run"

// differ runs cases through both backends and the reference git.
type differ struct {
	t       *testing.T
	r       *gitfixture.Repo
	tc      *tools.Context
	tools   map[string]*Tool
	tally   *actionTally
	context string // the commit being replayed, for messages
}

func newDiffer(t *testing.T, r *gitfixture.Repo) *differ {
	return &differ{t: t, r: r, tc: &tools.Context{Workspace: r.Dir}, tally: newTally(),
		tools: map[string]*Tool{"cli": New(), "go-git": New(Options{DisableCLI: true})}}
}

// check compares one case. The reference's output gets the tool's own
// normalisation for the model (valid UTF-8; names re-quoted when git's
// were not UTF-8); a reference that fails must fail in the tool too, with
// git's message.
func (d *differ) check(c diffCase) {
	want, refErr := d.reference(c.ref)
	in, _ := json.Marshal(c.in)
	for _, name := range []string{"cli", "go-git"} {
		res, err := d.tools[name].Execute(context.Background(), d.tc, in)
		key := c.action + "/" + name
		detail := fmt.Sprintf("%s %s [%s]: ", d.context, in, name)
		switch {
		case name == "go-git" && err == nil && !res.Success && strings.Contains(res.Content, nativeRefusal):
			d.tally.add(key, 1, "")
		case refErr != nil:
			if err == nil && !res.Success && strings.Contains(res.Content, firstLine(refErr.Error())) {
				d.tally.add(key, 0, "")
			} else if err != nil && strings.Contains(tools.AsError(err).Render(ToolName), "Path does not exist") {
				d.tally.add(key, 0, "") // git printed an error or nothing about a path nothing knows
			} else {
				d.tally.add(key, 2, detail+fmt.Sprintf("git failed (%v) but the tool said %v %q", refErr, err, res.Content))
			}
		case err != nil && emptyRead(c.action, want) && strings.Contains(tools.AsError(err).Render(ToolName), "Path does not exist"):
			d.tally.add(key, 0, "") // nothing knows the path; git prints nothing, the tool says so
		case err != nil:
			d.tally.add(key, 2, detail+"refused: "+tools.AsError(err).Render(ToolName))
		case !res.Success:
			d.tally.add(key, 2, detail+"failed: "+res.Content)
		case res.Metadata["truncated"] == true:
			kept, _, _ := strings.Cut(res.Content, "\n\n[output truncated to ")
			if strings.HasPrefix(want, kept) && len(kept) < len(want) {
				d.tally.add(key, 0, "") // a prefix of git's text, cut at a unit boundary
			} else {
				d.tally.add(key, 2, detail+"the cut result is not a prefix of git's text "+strings.Join(c.ref, " ")+"\n"+lineDiff(want, kept))
			}
		case res.Content != want:
			d.tally.add(key, 2, detail+"differs from git "+strings.Join(c.ref, " ")+"\n"+lineDiff(want, res.Content))
		default:
			d.tally.add(key, 0, "")
		}
	}
}

// reference runs git as the model's call means it and normalises its
// output the way the tool must for the model.
func (d *differ) reference(args []string) (string, error) {
	out, err := d.r.RunIn(d.r.Dir, args...)
	if err != nil {
		return "", fmt.Errorf("%s", strings.TrimSpace(stderrOf(err)))
	}
	for i, a := range args {
		if a == "core.quotepath=false" && !utf8.ValidString(out) {
			q := append([]string{}, args...)
			q[i] = "core.quotepath=true"
			if out, err = d.r.RunIn(d.r.Dir, q...); err != nil {
				return "", err
			}
		}
	}
	return strings.ToValidUTF8(out, "\uFFFD"), nil
}

func stderrOf(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// report fails the test on any disagreement and prints the counts for
// scripts/differential.sh.
func (d *differ) report(label string, commits int) {
	for _, l := range d.tally.lines() {
		if testing.Verbose() || *diffRepo != "" {
			fmt.Printf("DIFFERENTIAL git/%s repo=%s commits=%d\n", l, label, commits)
		}
	}
	for i, msg := range d.tally.disagree {
		if i == 30 {
			d.t.Errorf("... and %d more disagreements", len(d.tally.disagree)-30)
			break
		}
		d.t.Error(msg)
	}
}

// TestGitDifferentialFixture replays every commit of the fixture history:
// checked out, then dirtied, every action with its common options is
// compared with git for both backends.
// README.md "Development": the Git actions agree with the git CLI over a fixture history.
func TestGitDifferentialFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: replays the fixture history through every action against git; make test runs it (go test without -short)")
	}
	t.Parallel()
	r := gitfixture.History(t)
	r.Run("config", "advice.detachedHead", "false")
	d := newDiffer(t, r)
	commits := r.AllCommits("main", 0)
	for _, c := range commits {
		d.replayCommit(c, 0)
	}
	d.report("fixture", len(commits))
	if n := d.tally.counts["status/go-git"]; n == nil || n[0] < len(commits)*3 {
		t.Errorf("the fixture replay compared too few status calls: %v", d.tally.lines())
	}
}

// TestGitDifferentialHistory does the same over the newest commits of a
// real repository: this project's own, or -differential.repo.
func TestGitDifferentialHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: replays a real history through every action against git; make test runs it (go test without -short)")
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
	d := newDiffer(t, r)
	commits := r.Commits("HEAD", *diffMax)
	for _, c := range commits {
		d.replayCommit(c, *diffPaths)
	}
	d.report(src, len(commits))
}
