package git

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
)

func TestToolDeclaration(t *testing.T) {
	t.Parallel()
	tool := New()
	if tool.Name() != "Git" || !tool.ModelVisible() || tool.DeferLoading() {
		t.Fatalf("name/visibility: %q visible=%v deferred=%v", tool.Name(), tool.ModelVisible(), tool.DeferLoading())
	}
	caps := tool.Capabilities()
	if len(caps) != 2 || caps[0] != tools.CapReadOnly || caps[1] != tools.CapSandboxable {
		t.Fatalf("capabilities = %v, want [read_only sandboxable]", caps)
	}
	for _, in := range []string{`{"action":"status"}`, `{"action":"blame","path":"x"}`, `{}`, `not json`} {
		raw := json.RawMessage(in)
		if tool.ApprovalFor(raw) != tools.Auto || !tool.ReadOnlyFor(raw) || !tool.ParallelSafeFor(raw) || tool.StartsDetachedFor(raw) {
			t.Errorf("%s: approval %v read-only %v parallel %v", in, tool.ApprovalFor(raw), tool.ReadOnlyFor(raw), tool.ParallelSafeFor(raw))
		}
	}
	props := tool.InputSchema()["properties"].(map[string]any)
	for _, field := range []string{"action", "path", "cached", "unified", "max_count", "author", "since", "until",
		"rev", "patch", "stat", "start_line", "max_lines", "porcelain"} {
		if props[field] == nil {
			t.Errorf("schema lacks %q", field)
		}
	}
}

// TestRefusals covers input that is refused before anything runs, with the
// contract's exact messages.
func TestRefusals(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	tc := &tools.Context{Workspace: f.Dir}
	outside := canonicalTemp(t)
	cases := []struct {
		name, in string
		kind     tools.ErrorKind
		msg      string
	}{
		{"missing action", `{"path":"docs"}`, tools.KindInvalidInput,
			"Git requires an `action` parameter; nothing was run. Pass one of: status, diff, log, show, blame."},
		{"unknown action", `{"action":"commit"}`, tools.KindInvalidInput,
			`Unknown Git action "commit"; nothing was run. Pass one of: status, diff, log, show, blame.`},
		{"non-string action", `{"action":7}`, tools.KindInvalidInput,
			"Git requires `action` to be a string, got 7; nothing was run. Pass one of: status, diff, log, show, blame."},
		{"show without rev", `{"action":"show"}`, tools.KindInvalidInput, "missing required field 'rev'. Input provided: action"},
		{"rev starting with a dash", `{"action":"show","rev":"-x"}`, tools.KindInvalidInput, "git revision must not start with '-'"},
		{"empty rev", `{"action":"show","rev":""}`, tools.KindInvalidInput, "git revision must not be empty"},
		{"rev with whitespace", `{"action":"blame","path":"demo.go","rev":"HEAD main"}`, tools.KindInvalidInput,
			"git revision must not contain whitespace or control characters"},
		{"rev with a control character", `{"action":"show","rev":"HEAD\u0007"}`, tools.KindInvalidInput,
			"git revision must not contain whitespace or control characters"},
		{"blame without path", `{"action":"blame"}`, tools.KindInvalidInput, "missing required field 'path'. Input provided: action"},
		{"blame of a directory", `{"action":"blame","path":"docs"}`, tools.KindInvalidInput,
			"Git blame needs a file path, but 'docs' is a directory; nothing was run. Pass a file inside it."},
		{"missing path", `{"action":"status","path":"nope.txt"}`, tools.KindInvalidInput,
			"Path does not exist or is not accessible: nope.txt (not in the workspace, the index, or any commit reachable from a branch or tag); nothing to show."},
		{"path through a symlink", `{"action":"log","path":"link-to-demo/x"}`, tools.KindInvalidInput,
			"Path link-to-demo/x goes through the symbolic link "},
		{"wrong type", `{"action":"diff","unified":"3"}`, tools.KindInvalidInput,
			`field 'unified' must be a non-negative integer; got string. Received: "3"`},
		{"negative context", `{"action":"diff","unified":-1}`, tools.KindInvalidInput,
			"field 'unified' must be a non-negative integer; got number. Received: -1"},
		{"relative escape", `{"action":"status","path":"../.."}`, tools.KindPathEscape, ""},
		{"absolute escape", `{"action":"log","path":` + jsonString(outside) + `}`, tools.KindPathEscape, ""},
	}
	for _, c := range cases {
		_, err := New().Execute(context.Background(), tc, json.RawMessage(c.in))
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != c.kind {
			t.Errorf("%s: error %v, want kind %s", c.name, err, c.kind.Category())
			continue
		}
		if c.msg != "" && !strings.HasPrefix(te.Msg, c.msg) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, te.Msg, c.msg)
		}
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestPrepareGivesTheContractsMessages checks that the exact action
// messages win over schema validation, that a wrong type gets the strict
// reader's text (CONTRACT.md §2.3) whichever action reads the field, that an
// unknown key gets the closed schema's refusal, and that a show without rev
// lists the keys sent (the action among them).
func TestPrepareGivesTheContractsMessages(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"action":"commit"}`:                  `Unknown Git action "commit"`,
		`{"action":"diff","cached":"yes"}`:     `field 'cached' must be a boolean; got string. Received: "yes"`,
		`{"action":"log","bogus":1}`:           "Git log does not take `bogus`; nothing was run. Its fields are: action, path, rev, max_count",
		`{"action":"status","rev":"HEAD~1"}`:   "Git status does not take `rev`; nothing was run. Its fields are: action, path.",
		`{"action":"show"}`:                    "missing required field 'rev'. Input provided: action",
		`{"action":"show","rev":"-p"}`:         "git revision must not start with '-'",
		`{"action":"blame","unified":-1}`:      "Git blame does not take `unified`",
		`{"action":"diff","unified":-1}`:       "field 'unified' must be a non-negative integer",
		`{"action":"show","rev":"a","stat":1}`: "field 'stat' must be a boolean; got number. Received: 1",
	} {
		_, err := New().Prepare(json.RawMessage(in))
		var te *tools.Error
		if !errors.As(err, &te) || !strings.Contains(te.Msg, want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if c, err := New().Prepare(json.RawMessage(`{"action":"log"}`)); err != nil || string(c.Input) != `{"action":"log"}` {
		t.Fatalf("valid input changed: %+v %v", c, err)
	}
}

// TestFailures covers reads that ran and failed: the result is not a
// success and names the target, identically on both backends.
func TestFailures(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Write("untracked.txt", "u\n")
	notRepo := canonicalTemp(t)
	unborn := newFixture(t)
	unborn.Write("a.txt", "a\n")
	unborn.Run("add", "a.txt")
	cases := []struct {
		name, workspace, in, want string
	}{
		{"not a repository", notRepo, `{"action":"status"}`,
			"git status failed: fatal: not a git repository (or any of the parent directories): .git"},
		{"log outside a repository", notRepo, `{"action":"log"}`,
			"git log failed: fatal: not a git repository (or any of the parent directories): .git"},
		{"unknown revision", f.Dir, `{"action":"show","rev":"no-such-branch"}`,
			"git show failed for 'no-such-branch': fatal: ambiguous argument 'no-such-branch': unknown revision or path not in the working tree.\n" +
				"Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"},
		{"unknown revision with a path", f.Dir, `{"action":"show","rev":"no-such-branch","path":"demo.go"}`,
			"git show failed for 'no-such-branch': fatal: bad revision 'no-such-branch'"},
		{"missing path in a revision", f.Dir, `{"action":"show","rev":"HEAD:nope.txt"}`,
			"git show failed for 'HEAD:nope.txt': fatal: path 'nope.txt' does not exist in 'HEAD'"},
		{"blame of an untracked file", f.Dir, `{"action":"blame","path":"untracked.txt"}`,
			"git blame failed for 'untracked.txt' at 'HEAD': fatal: no such path untracked.txt in HEAD"},
		{"blame past the end", f.Dir, `{"action":"blame","path":"run.sh","start_line":50}`,
			"git blame failed for 'run.sh' at 'HEAD': fatal: file run.sh has only 2 lines"},
		{"blame at an unknown revision", f.Dir, `{"action":"blame","path":"run.sh","rev":"nope"}`,
			"git blame failed for 'run.sh' at 'nope': fatal: bad revision 'nope'"},
		{"log on an unborn branch", unborn.Dir, `{"action":"log"}`,
			"git log failed: fatal: your current branch 'main' does not have any commits yet"},
		{"show on an unborn branch", unborn.Dir, `{"action":"show","rev":"HEAD"}`,
			"git show failed for 'HEAD': fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree.\n" +
				"Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"},
		{"blame on an unborn branch", unborn.Dir, `{"action":"blame","path":"a.txt"}`,
			"git blame failed for 'a.txt' at 'HEAD': fatal: bad revision 'HEAD'"},
	}
	for _, c := range cases {
		for name, tool := range backends() {
			res, err := tool.Execute(context.Background(), &tools.Context{Workspace: c.workspace}, json.RawMessage(c.in))
			if err != nil {
				t.Errorf("%s [%s]: refused: %v", c.name, name, err)
				continue
			}
			if name == "go-git" && needsBinaryInput(c.in) && strings.HasPrefix(res.Content, needsBinaryText(c.in)) {
				continue
			}
			if res.Success || res.Content != c.want {
				t.Errorf("%s [%s]: success=%v\n got %q\nwant %q", c.name, name, res.Success, res.Content, c.want)
			}
		}
	}
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	tc := &tools.Context{Workspace: f.Dir}
	cases := []struct {
		in   string
		want map[string]any
	}{
		{`{"action":"status"}`, map[string]any{"command": "git -C " + f.Dir + " -c core.quotepath=false status --porcelain=v1 -b",
			"working_dir": f.Dir, "pathspec": nil}},
		{`{"action":"diff","path":"docs","cached":true,"unified":7}`, map[string]any{"working_dir": f.Dir, "pathspec": "docs",
			"cached": true, "unified": 7,
			"command": "git -C " + f.Dir + " -c core.quotepath=false diff --no-color --no-ext-diff --unified=7 --cached -- docs"}},
		{`{"action":"log","max_count":500,"author":"Ada","path":"demo.go"}`, map[string]any{"max_count": 200, "author": "Ada",
			"pathspec": "demo.go", "command": "git -C " + f.Dir + " log --no-color --max-count=200 --date=iso-strict " +
				"--pretty=format:%H%nAuthor: %an <%ae>%nDate: %ad%nSubject: %s%n --author=Ada -- demo.go"}},
		{`{"action":"show","rev":"HEAD","patch":false}`, map[string]any{"rev": "HEAD", "patch": false, "stat": true, "unified": 3,
			"command": "git -C " + f.Dir + " show --no-color --no-ext-diff --stat HEAD"}},
		{`{"action":"show","rev":"HEAD","patch":false,"stat":false}`, map[string]any{
			"command": "git -C " + f.Dir + " show --no-color --no-ext-diff --no-patch HEAD"}},
		{`{"action":"blame","path":"docs/guide.md","start_line":2,"max_lines":3,"porcelain":true}`, map[string]any{
			"rev": "HEAD", "start_line": 2, "max_lines": 3, "porcelain": true, "pathspec": "docs/guide.md", "working_dir": f.Dir,
			"command": "git -C " + f.Dir + " blame --date=iso -L2,4 --line-porcelain HEAD -- docs/guide.md"}},
		{`{"action":"blame","path":"demo.go","max_lines":99999,"start_line":-4}`, map[string]any{"start_line": 1, "max_lines": 2000}},
	}
	for _, c := range cases {
		for name, tool := range backends() {
			res, err := tool.Execute(context.Background(), tc, json.RawMessage(c.in))
			if name == "go-git" && needsBinaryInput(c.in) && strings.HasPrefix(res.Content, needsBinaryText(c.in)) {
				continue
			}
			if err != nil || !res.Success {
				t.Fatalf("%s [%s]: %v %s", c.in, name, err, res.Content)
			}
			if res.Metadata["truncated"] != false || res.Metadata["omitted_chars"] != 0 || res.Metadata["backend"] == nil {
				t.Errorf("%s [%s]: truncation/backend metadata %v", c.in, name, res.Metadata)
			}
			for k, v := range c.want {
				if res.Metadata[k] != v {
					t.Errorf("%s [%s]: metadata[%s] = %#v, want %#v", c.in, name, k, res.Metadata[k], v)
				}
			}
		}
	}
}

// TestTruncation: output over the call's budget (or the contract's 40000)
// is cut at a unit boundary — a prefix of git's own text — and the note
// says how much was left out and how to get it.
func TestTruncation(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	var big strings.Builder
	for i := range 3000 {
		big.WriteString(strings.Repeat("é", 9) + " line " + itoaPad(i) + "\n")
	}
	f.Write("big.txt", big.String())
	for i := range 40 {
		f.Write("many/file"+itoaPad(i)+".txt", strings.Repeat("x\n", 30))
	}
	f.Run("add", "big.txt", "many")
	cases := []struct {
		in     string
		budget int
		args   []string
		hint   string
	}{
		{`{"action":"diff","cached":true}`, 0, []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached"},
			"Not shown: the rest of big.txt, and the files many/file0.txt"},
		{`{"action":"diff","cached":true,"path":"many"}`, 800, []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached", "--", "many"},
			"Files not shown: many/file1"},
		{`{"action":"diff","cached":true}`, 3000, []string{"-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--unified=3", "--cached"},
			"Not shown: the rest of big.txt, and the files many/file0.txt, many/file1.txt"},
		{`{"action":"show","rev":":big.txt"}`, 0, []string{"show", ":big.txt"}, "read a large file with File read"},
		{`{"action":"status"}`, 500, []string{"-c", "core.quotepath=false", "status", "--porcelain=v1", "-b"}, "more entries not shown; narrow with `path`"},
		{`{"action":"log","max_count":200}`, 400, []string{"log", "--no-color", "--max-count=200", "--date=iso-strict", "--pretty=" + logFormat},
			"ask for fewer with `max_count`"},
		{`{"action":"blame","path":"demo.go","max_lines":2000}`, 600, []string{"blame", "--date=iso", "-L1,2000", "HEAD", "--", "demo.go"},
			"continue with `start_line: "},
	}
	for _, c := range cases {
		want := strings.ToValidUTF8(f.Run(c.args...), "\uFFFD")
		for name, tool := range backends() {
			tc := &tools.Context{Workspace: f.Dir, Budget: c.budget}
			res, err := tool.Execute(context.Background(), tc, json.RawMessage(c.in))
			if name == "go-git" && needsBinaryInput(c.in) && strings.HasPrefix(res.Content, needsBinaryText(c.in)) {
				continue
			}
			if err != nil || !res.Success {
				t.Fatalf("%s [%s] %v %s", c.in, name, err, res.Content)
			}
			limit := min(maxOutputChars, tc.ResultBudget())
			kept, note, cut := strings.Cut(res.Content, "\n\n[output truncated to ")
			switch {
			case !cut || res.Metadata["truncated"] != true:
				t.Errorf("%s [%s] budget %d: not cut (%d chars)", c.in, name, c.budget, len([]rune(res.Content)))
			case len([]rune(res.Content)) > limit:
				t.Errorf("%s [%s]: %d characters, over the limit %d", c.in, name, len([]rune(res.Content)), limit)
			case !strings.HasPrefix(want, kept) || !strings.HasSuffix(kept, "\n"):
				t.Errorf("%s [%s]: the kept part is not a prefix of git's text ending a line:\n%s", c.in, name, lineDiff(want, kept))
			case res.Metadata["omitted_chars"] != len([]rune(want))-len([]rune(kept)):
				t.Errorf("%s [%s]: omitted_chars %v, want %d", c.in, name, res.Metadata["omitted_chars"], len([]rune(want))-len([]rune(kept)))
			case !strings.Contains(note, c.hint):
				t.Errorf("%s [%s]: note %q lacks %q", c.in, name, note, c.hint)
			}
		}
	}
}

// needsBinaryText is how the go-git backend's refusal of in begins.
func needsBinaryText(in string) string {
	var a struct{ Action string }
	_ = json.Unmarshal([]byte(in), &a)
	if a.Action == "show" {
		return "Git show of a commit with its patch or stat needs the git binary"
	}
	return "Git " + a.Action + " needs the git binary"
}

func itoaPad(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestBackendChoice pins which backend serves each action.
func TestBackendChoice(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	tc := &tools.Context{Workspace: f.Dir}
	want := map[string]string{"status": "git", "diff": "git", "log": "git", "show": "git", "blame": "git"}
	noBinary := New(Options{GitPath: filepath.Join(t.TempDir(), "no-such-git")})
	for action, backend := range want {
		in := `{"action":"` + action + `","rev":"HEAD","path":"demo.go"}`
		if action == "status" || action == "diff" || action == "log" {
			in = `{"action":"` + action + `"}`
		}
		res, err := New().Execute(context.Background(), tc, json.RawMessage(in))
		if err != nil || res.Metadata["backend"] != backend {
			t.Errorf("%s with git: backend %v (%v), want %s", action, res.Metadata["backend"], err, backend)
		}
		res, err = noBinary.Execute(context.Background(), tc, json.RawMessage(in))
		if needsBinaryInput(in) && (err != nil || !res.Success) {
			if err != nil || !strings.HasPrefix(res.Content, needsBinaryText(in)) {
				t.Errorf("%s without git: want the needs-the-git-binary failure, got %v %q", action, err, res.Content)
			}
			in = `{"action":"show","rev":"HEAD","path":"demo.go","patch":false,"stat":false}`
			if action != "show" {
				continue
			}
			res, err = noBinary.Execute(context.Background(), tc, json.RawMessage(in))
		}
		if err != nil || !res.Success || res.Metadata["backend"] != "go-git" {
			t.Errorf("%s without git: backend %v success %v (%v)", action, res.Metadata["backend"], res.Success, err)
		}
	}
}

// TestNativeLimitsFallBackToGit: input the go-git backend cannot answer
// faithfully goes to the git binary when there is one, and is a clear
// failure when there is not.
func TestNativeLimitsFallBackToGit(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	f.Run("checkout", "-q", "-b", "conflict", "HEAD~3")
	f.Write("demo.go", "package demo\n// theirs\n")
	f.Commit("Theirs")
	f.Run("checkout", "-q", "main")
	f.Tick()
	if _, err := f.RunIn(f.Dir, "merge", "-q", "--no-edit", "conflict"); err == nil {
		t.Fatal("expected a conflicting merge")
	}
	f.Write("demo.go", "package demo\n// resolved by hand\n")
	f.Run("add", "demo.go")
	f.CommitStaged("Merge with a hand-made resolution")
	tc := &tools.Context{Workspace: f.Dir}
	cases := []struct{ in, native string }{
		{`{"action":"log","since":"last tuesday"}`, `cannot read since date "last tuesday" without the git binary`},
		{`{"action":"log","author":"\\<Ada"}`, "uses regular-expression syntax this build cannot evaluate"},
		{`{"action":"show","rev":"HEAD"}`, "Git show of a commit with its patch or stat needs the git binary"},
		{`{"action":"show","rev":"HEAD@{1}"}`, "revision syntax in 'HEAD@{1}' needs the git binary"},
	}
	for _, c := range cases {
		res, err := New(Options{DisableCLI: true}).Execute(context.Background(), tc, json.RawMessage(c.in))
		if err != nil || res.Success || !strings.Contains(res.Content, c.native) {
			t.Errorf("%s without git: %v %q", c.in, err, res.Content)
		}
		res, err = New().Execute(context.Background(), tc, json.RawMessage(c.in))
		if err != nil || !res.Success || res.Metadata["backend"] != "git" {
			t.Errorf("%s with git: %v success=%v backend=%v %q", c.in, err, res.Success, res.Metadata["backend"], res.Content)
		}
	}
	stat := []gitCase{{name: "conflicted merge, stat only", in: `{"action":"show","rev":"HEAD","patch":false}`,
		args: []string{"show", "--no-color", "--no-ext-diff", "--stat", "HEAD"}}}
	runCases(t, f, stat)
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	f := historyFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, tool := range backends() {
		_, err := tool.Execute(ctx, &tools.Context{Workspace: f.Dir}, json.RawMessage(`{"action":"status"}`))
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindCancelled {
			t.Errorf("[%s] error %v, want Cancelled", name, err)
		}
	}
}
