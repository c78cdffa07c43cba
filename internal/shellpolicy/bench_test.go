package shellpolicy

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/cputime"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
)

// script2K is a realistic 2 KB build-and-inspect script: pipelines,
// conditionals, substitutions, a here-document and a loop.
var script2K = func() string {
	const block = `set -euo pipefail
cd internal && go vet ./... 2>&1 | tee /tmp/vet.log
if [ -f go.mod ]; then grep -n "^module" go.mod | head -1; fi
for f in $(git ls-files '*.go' | head -20); do wc -l "$f"; done
git --no-pager log --oneline -5 && git status --short
cat <<'END' | sed -n '1,3p'
one
two
END
find . -name '*_test.go' -newer go.sum | xargs grep -l "t.Parallel" | sort | uniq -c
`
	s := strings.Repeat(block, 2048/len(block)+1)
	return s[:strings.LastIndex(s[:2048], "\n")+1]
}()

// twoTexts are s and s after a blank line: the same command, two texts,
// so that a benchmark alternating them parses every time (the classifier
// keeps the tree of the text it parsed last, for the rule match that
// follows; a new command from the model is a new text).
func twoTexts(s string) [2]string { return [2]string{s, "\n" + s} }

// BenchmarkParse2K is the parser alone (mvdan.cc/sh/v3/syntax).
func BenchmarkParse2K(b *testing.B) {
	b.SetBytes(int64(len(script2K)))
	defer cputime.PerOp(b)()
	for b.Loop() {
		if _, err := parse(script2K); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceFields2K is the reference the other two are read
// against on a shared machine: strings.Fields over the same 2 KB.
func BenchmarkReferenceFields2K(b *testing.B) {
	b.SetBytes(int64(len(script2K)))
	defer cputime.PerOp(b)()
	for b.Loop() {
		_ = strings.Fields(script2K)
	}
}

// BenchmarkClassify2K is the whole classification with path checks
// against the real filesystem (Lstat of every argument that may be a path).
func BenchmarkClassify2K(b *testing.B) {
	env := testEnv()
	env.Workspace = b.TempDir()
	b.SetBytes(int64(len(script2K)))
	texts := twoTexts(script2K)
	defer cputime.PerOp(b)()
	for i := 0; b.Loop(); i++ {
		if v := env.Classify(texts[i%2], ""); v.Class != Ordinary {
			b.Fatalf("class %v %v", v.Class, v.Reasons)
		}
	}
}

// BenchmarkClassifyAndRules2K is what a Bash call asks of this package
// for one command: its classification, then its simple commands for the
// permission rules (Commands).
func BenchmarkClassifyAndRules2K(b *testing.B) {
	env := testEnv()
	env.Workspace = b.TempDir()
	b.SetBytes(int64(len(script2K)))
	texts := twoTexts(script2K)
	defer cputime.PerOp(b)()
	for i := 0; b.Loop(); i++ {
		if v := env.Classify(texts[i%2], ""); v.Class != Ordinary {
			b.Fatalf("class %v %v", v.Class, v.Reasons)
		}
		if cmds, _ := Commands(texts[i%2]); len(cmds) == 0 {
			b.Fatal("no commands")
		}
	}
}

// BenchmarkClassifyShort is a typical one-line command.
func BenchmarkClassifyShort(b *testing.B) {
	env := testEnv()
	texts := twoTexts("git status --short && rg -n TODO internal | head -20")
	defer cputime.PerOp(b)()
	for i := 0; b.Loop(); i++ {
		env.Classify(texts[i%2], "")
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"rm -rf /", script2K, "echo cm0gLXJmIC8= | base64 -d | sh", "$(echo rm) -rf /",
		"python3 -c 'import shutil; shutil.rmtree(\"/\")'", "a{b,{c,d}}e", "x=$'\\x72'; $x", "f(){ f|f& };f",
		// the wrappers and sed scripts the classifier reads through
		"sed -n -e 's/a/b/gew out' -e '1e rm -rf /' -e 'y/ab/cd/;/x/{r f\n}' f", "watch -n1 -x rm -rf /",
		"script -qec 'cat ~/.ssh/id_rsa' /dev/null", "parallel -j2 rm {} ::: a b :::: list", "tmux send-keys -t x 'rm -rf /' Enter",
		"unshare -rm --fork sh -c 'rm -rf /'", "setpriv --reuid=1 -- env -S 'rm -rf /'", "git -C ../o --git-dir=x log -p",
		// expansions, arithmetic, prompts and namerefs that evaluate values (issue 23)
		"echo ${PATH/$(rm -rf /)/x} ${PATH:$(id)0:3} ${a[$(id)]}", "x='a[$(rm -rf /)]'; y=x; echo $((y)) $[x]; [[ x -eq 0 ]]",
		`x='\$(id)'; echo ${x@P} ${!x}; PS4='$(id)'`, "declare -n r=c; c=rm; $r -rf /; declare -i q=x; printf -v 'a[$(id)]' x",
		"x='$x'; echo $((x)); x='x+x'; echo $((x))",
		// functions, loops, xargs, make, command variables and written scripts
		`f(){ g "$@"; }; g(){ f "$1"; rm -rf "$1"; }; f /`, "for d in / ~; do for e in $d; do rm -rf $e; done; done",
		"printf '/\\0' | while read -r d; do xargs -0 -d '\\n' rm -rf <<< \"$d\"; done",
		"make -f - -C d X=/ <<< $'X ?= 1\\nall: ; $(shell rm -rf $(X))\\n\\t@-rm -rf $$HOME $(X'",
		"GIT_SSH_COMMAND='rm -rf /' BASH_ENV=<(echo x) ENV=$(cat f) git fetch",
		"echo 'rm -rf /' | tee a.sh > b.sh; cp a.sh c.sh; mv c.sh d; chmod +x d; ./d; . b.sh; awk -f a.sh",
		`python3 -c 'getattr(__import__("shu"+"til"), "rm" "tree")("/"); exec(x)'`,
		// file: URLs and curl config files
		"curl 'file://localhost/%7e/.ss%68/{a,id_rsa}' -K - --config=c -sKc <<< 'url = \"file:///x\"'"} {
		f.Add(s)
	}
	env := testEnv()
	f.Fuzz(func(t *testing.T, s string) {
		v := env.Classify(s, "")
		if strings.Contains(v.Reason(), "classifier failed") {
			t.Fatalf("classifier panicked on %q: %v", s, v.Reasons)
		}
		if v.Class >= Explicit && len(v.Reasons) == 0 {
			t.Fatalf("%v without a reason for %q", v.Class, s)
		}
	})
}

// BenchmarkClassifyShortPath is BenchmarkClassifyShort with this process's
// PATH and a workspace, so every command name is looked up on PATH (the
// check for programs a workspace directory on PATH would run).
func BenchmarkClassifyShortPath(b *testing.B) {
	env := testEnv()
	env.Workspace = b.TempDir()
	env.Getenv = os.Getenv
	texts := twoTexts("git status --short && rg -n TODO internal | head -20")
	for i := 0; b.Loop(); i++ {
		env.Classify(texts[i%2], "")
	}
}

// BenchmarkClassifyGitLogPatch is `git log -p` in a real repository that
// tracks a .env: the tracked-secret check is a walk to .git, a stat of the
// index and a cache hit (git ls-files runs once per index change).
func BenchmarkClassifyGitLogPatch(b *testing.B) {
	r := gitfixture.New(b)
	r.Write(".env", "X=1\n")
	r.Write("README.md", "hello\n")
	r.Commit("first")
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	for b.Loop() {
		if v := env.Classify("git log -p", ""); v.Class != Explicit {
			b.Fatalf("class %v", v.Class)
		}
	}
}

// BenchmarkClassifyGitLogOneline is the same repository's `git log
// --oneline`, which prints no content: the reference for the row above.
func BenchmarkClassifyGitLogOneline(b *testing.B) {
	r := gitfixture.New(b)
	r.Write("README.md", "hello\n")
	r.Commit("first")
	env := &Env{Home: "/nonexistent-home", Workspace: r.Dir}
	for b.Loop() {
		if v := env.Classify("git log --oneline", ""); v.Class != ReadOnly {
			b.Fatalf("class %v", v.Class)
		}
	}
}

// projectRepo is this project's own repository (the worktree the test runs
// in), or a skip when the test does not run inside one.
func projectRepo(b *testing.B) (repo, *Env) {
	wd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	r, ok := (&classifier{env: &Env{}}).gitRepo(gitGlobals{cwd: wd})
	if !ok {
		e2e.Missing(b, "the benchmark walks this project's history and runs outside a checkout")
	}
	return r, &Env{Home: "/nonexistent-home", Workspace: r.top}
}

// BenchmarkGitHistoryListing is the uncached history walk (git log --all
// --reflog -m --no-renames --diff-filter=A --name-only) over this
// project's own history: paid once per repository state.
func BenchmarkGitHistoryListing(b *testing.B) {
	r, env := projectRepo(b)
	c := newClassifier(env, r.top, 0)
	for b.Loop() {
		historyCache.Lock()
		delete(historyCache.m, r.gitDir)
		historyCache.Unlock()
		if _, complete := c.historySecrets(r); !complete {
			b.Fatal("the walk timed out")
		}
	}
}

// BenchmarkGitRevParse is the cheapest git process (rev-parse HEAD) in
// the same repository: the reference for the row above.
func BenchmarkGitRevParse(b *testing.B) {
	r, env := projectRepo(b)
	c := newClassifier(env, r.top, 0)
	for b.Loop() {
		if _, err := c.runGit(r, time.Minute, "rev-parse", "HEAD"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassifyGitLogPatchProject is `git log -p` in this project
// with the tracked list and the history listing cached — the classifier
// path a repeated command takes (stats of the index and of the ref files)
// — interleaved with its reference, `git log --oneline` (no secret check),
// in each iteration: patch-ns/op and oneline-ns/op.
func BenchmarkClassifyGitLogPatchProject(b *testing.B) {
	r, env := projectRepo(b)
	env.Classify("git log -p", r.top) // fill the caches
	var patch, oneline time.Duration
	for b.Loop() {
		t0 := time.Now()
		env.Classify("git log -p", r.top)
		t1 := time.Now()
		env.Classify("git log --oneline", r.top)
		patch, oneline = patch+t1.Sub(t0), oneline+time.Since(t1)
	}
	b.ReportMetric(float64(patch.Nanoseconds())/float64(b.N), "patch-ns/op")
	b.ReportMetric(float64(oneline.Nanoseconds())/float64(b.N), "oneline-ns/op")
}
