package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

const goMod = "module fx\n\ngo 1.22\n"

var goFailing = map[string]string{
	"go.mod": goMod,
	"a_test.go": `package fx

import "testing"

func TestPass(t *testing.T) {}
func TestFail(t *testing.T) { t.Log("context line"); t.Fatal("failing on purpose") }
func TestSkip(t *testing.T) { t.Skip("later") }
func TestParent(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("sub failure") })
}
func TestSubs(t *testing.T) {
	for _, n := range []string{"a", "b", "c"} {
		t.Run(n, func(t *testing.T) { t.Fatal("no") })
	}
	t.Run("nested", func(t *testing.T) { t.Run("deep/er", func(t *testing.T) {}) })
}
`,
	"broken/b_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { undefined() }\n",
}

// CONTRACT.md §6.4: tests returns passed/failed/skipped counts and the failing names with excerpts from a real go test
// run.
func TestGoTestsReportCountsAndFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, goFailing)
	var r testReport
	res := f.decode(`{"action":"tests"}`, &r)
	if res.Success || r.Success || r.ExitCode == nil || *r.ExitCode != 1 || r.Status != "Failed" || r.Ecosystem != "go" {
		t.Fatalf("outcome %+v", r)
	}
	if want := "(cd " + f.tc.Workspace + " && go test -json ./...)"; r.Command != want {
		t.Fatalf("command %q, want %q", r.Command, want)
	}
	// Leaves only: TestPass, TestParent/ok and TestSubs/nested/deep/er pass;
	// TestFail, TestParent/bad, TestSubs/a..c fail, and so does the package
	// that does not build; TestSkip is skipped. The parents are not counted.
	if got := countsOf(r); got != [3]int{3, 6, 1} {
		t.Fatalf("counts %v", got)
	}
	agree(t, r)
	if got, want := r.failureNames(), []string{"TestFail", "TestParent/bad", "TestSubs/a", "TestSubs/b", "TestSubs/c",
		"fx/broken [build failed]"}; !slices.Equal(got, want) {
		t.Fatalf("failures %v, want %v", got, want)
	}
	if out := r.failureOutput("TestFail"); !strings.Contains(out, "failing on purpose") || !strings.Contains(out, "context line") {
		t.Fatalf("TestFail excerpt %q", out)
	}
	if out := r.failureOutput("fx/broken [build failed]"); !strings.Contains(out, "undefined: undefined") {
		t.Fatalf("build failure excerpt %q", out)
	}
	if !strings.Contains(r.Stdout, "--- FAIL: TestFail") || strings.Contains(r.Stdout, `"Action"`) {
		t.Fatalf("stdout should be go test's text, not its JSON: %q", r.Stdout)
	}
}

func TestGoTestsPassAndArgs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, map[string]string{"go.mod": goMod,
		"a_test.go": "package fx\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\nfunc TestTwo(t *testing.T) {}\n"})
	var r testReport
	f.decode(`{"action":"tests"}`, &r)
	if !r.Success || *r.ExitCode != 0 || countsOf(r) != [3]int{2, 0, 0} || len(r.Failures) != 0 {
		t.Fatalf("%+v", r)
	}
	f.decode(`{"action":"tests","args":"-run 'TestOne$' ."}`, &r)
	if !r.Success || countsOf(r) != [3]int{1, 0, 0} || !strings.HasSuffix(r.Command, "go test -json -run 'TestOne$' .)") {
		t.Fatalf("%+v", r)
	}
}

// README.md "Tools": node:test subtests count as tests and todo counts as skipped.
func TestNodeTestScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		e2e.Missing(t, "npm is not installed")
	}
	f := newFixture(t, Options{}, map[string]string{
		"package.json": `{"name":"fx","version":"1.0.0","scripts":{"test":"node --test"}}`,
		"test/math.test.js": `const test = require('node:test');
const assert = require('node:assert');
test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('fails on purpose', () => { assert.strictEqual(1 + 1, 3); });
test('skipped', { skip: true }, () => {});
test('todo failing', { todo: true }, () => { throw new Error('not yet'); });
test('todo passing', { todo: true }, () => {});
test('suite', async (t) => {
  await t.test('inner ok', () => {});
  await t.test('inner bad', () => { throw new Error('boom'); });
  await t.test('deeper', async (t) => { await t.test('leaf', () => {}); });
});
const { describe, it } = require('node:test');
describe('desc', () => { it('it ok', () => {}); it('it bad', () => { assert.ok(false); }); });
`})
	var r testReport
	f.decode(`{"action":"tests"}`, &r)
	if r.Success || r.Ecosystem != "node" || !strings.HasSuffix(r.Command, "&& npm test)") {
		t.Fatalf("%+v", r)
	}
	// Leaves only (node's own summary also counts the parents "suite" and
	// "deeper"): adds, inner ok, leaf, it ok pass; three fail; skipped and
	// both to-dos are skipped.
	if got := countsOf(r); got != [3]int{4, 3, 3} {
		t.Fatalf("counts %v", got)
	}
	agree(t, r)
	if got, want := r.failureNames(), []string{"fails on purpose", "suite > inner bad", "desc > it bad"}; !slices.Equal(got, want) {
		t.Fatalf("failures %v, want %v", got, want)
	}
	if out := r.failureOutput("fails on purpose"); !strings.Contains(out, "2 !== 3") {
		t.Fatalf("excerpt %q", out)
	}
}

// README.md "Tools": pytest errors count as failed and are listed as `<node id> [error]`, xfail counts as skipped and xpass as passed.
func TestPytest(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest()
	if py == "" {
		e2e.Missing(t, "no python interpreter with pytest (Debian: python3-pytest)")
	}
	f := newFixture(t, Options{Python: py}, map[string]string{"tests/test_math.py": `import pytest
def test_adds():
    assert 1 + 1 == 2
def test_fails_on_purpose():
    assert 1 + 1 == 3
@pytest.mark.skip(reason="not today")
def test_skipped():
    pass
class TestGroup:
    def test_in_class(self):
        raise ValueError("bad value")
@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")
@pytest.fixture
def bad_teardown():
    yield 1
    raise RuntimeError("teardown broke")
def test_setup_error(broken):
    pass
def test_fails_then_teardown(bad_teardown):
    assert False
@pytest.mark.xfail
def test_xfail():
    assert False
@pytest.mark.xfail
def test_xpass():
    pass
@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n == 1
`, "tests/test_collect.py": "import nope_missing_module\n"})
	var r testReport
	f.decode(`{"action":"tests","args":"-p no:cacheprovider --continue-on-collection-errors"}`, &r)
	// passed: adds, xpass, param[1]; failed: 4 failures and 3 errors
	// (setup, teardown, collection); skipped: skipped and xfail.
	if r.Success || r.Ecosystem != "python" || *r.ExitCode != 1 || countsOf(r) != [3]int{3, 7, 2} {
		t.Fatalf("counts %v, failures %v\n%s", countsOf(r), r.failureNames(), r.Stdout)
	}
	agree(t, r)
	want := []string{"tests/test_math.py::test_fails_on_purpose", "tests/test_math.py::TestGroup::test_in_class",
		"tests/test_math.py::test_fails_then_teardown", "tests/test_math.py::test_param[2]", "tests/test_collect.py [error]",
		"tests/test_math.py::test_setup_error [error]", "tests/test_math.py::test_fails_then_teardown [error]"}
	if got := r.failureNames(); !slices.Equal(got, want) {
		t.Fatalf("failures %v", got)
	}
	for name, text := range map[string]string{"tests/test_math.py::test_setup_error [error]": "fixture broke",
		"tests/test_math.py::test_fails_then_teardown [error]": "teardown broke", "tests/test_collect.py [error]": "nope_missing_module"} {
		if out := r.failureOutput(name); !strings.Contains(out, text) {
			t.Errorf("%s excerpt %q", name, out)
		}
	}
	if out := r.failureOutput(want[0]); !strings.Contains(out, "assert (1 + 1) == 3") {
		t.Fatalf("excerpt %q", out)
	}
	if out := r.failureOutput(want[1]); !strings.Contains(out, "ValueError: bad value") {
		t.Fatalf("class excerpt %q", out)
	}
	f.decode(`{"action":"tests","args":"-p no:cacheprovider -k adds --ignore tests/test_collect.py"}`, &r)
	if !r.Success || countsOf(r)[0] != 1 || countsOf(r)[1] != 0 {
		t.Fatalf("-k adds: %+v", r)
	}
}

func TestCargoTests(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("cargo"); err != nil {
		e2e.Missing(t, "cargo is not installed (Debian: cargo)")
	}
	f := newFixture(t, Options{}, map[string]string{
		"Cargo.toml": "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"lib.rs\"\n",
		"lib.rs": `/// Doubles.
///
/// ` + "```" + `
/// assert_eq!(fx::double(2), 5);
/// ` + "```" + `
pub fn double(n: i32) -> i32 { n * 2 }

#[cfg(test)]
mod tests {
    #[test]
    fn adds() { assert_eq!(1 + 1, 2); }
    #[test]
    fn fails_on_purpose() { assert_eq!(1 + 1, 3, "arithmetic is broken"); }
    #[test]
    #[ignore]
    fn ignored() {}
}
`})
	var r testReport
	f.decode(`{"action":"tests","args":"--lib"}`, &r)
	if r.Success || r.Ecosystem != "cargo" || countsOf(r) != [3]int{1, 1, 1} || !strings.HasSuffix(r.Command, "cargo test --lib)") {
		t.Fatalf("%+v\n%s", r, r.Stderr)
	}
	agree(t, r)
	if got := r.failureNames(); !slices.Equal(got, []string{"tests::fails_on_purpose"}) {
		t.Fatalf("failures %v", got)
	}
	// All targets: the failing doc test (a name with spaces) is counted and listed too.
	f.decode(`{"action":"tests","args":"--no-fail-fast"}`, &r)
	agree(t, r)
	if countsOf(r) != [3]int{1, 2, 1} || !slices.Contains(r.failureNames(), "lib.rs - double (line 3)") {
		t.Fatalf("doc tests: %v %v\n%s", countsOf(r), r.failureNames(), r.Stdout)
	}
	if out := r.failureOutput("tests::fails_on_purpose"); !strings.Contains(out, "arithmetic is broken") {
		t.Fatalf("excerpt %q", out)
	}
}

func TestMakeAndConfiguredCommands(t *testing.T) {
	t.Parallel()
	mk := newFixture(t, Options{}, map[string]string{"Makefile": ".PHONY: test\ntest:\n\t@echo '# pass 3'\n\t@echo '# fail 0'\n"})
	var r testReport
	mk.decode(`{"action":"tests"}`, &r)
	if !r.Success || r.Ecosystem != "make" || countsOf(r) != [3]int{3, 0, 0} || !strings.HasSuffix(r.Command, "&& make test)") {
		t.Fatalf("make: %+v", r)
	}

	cfg := newFixture(t, Options{TestCommand: "./t.sh"}, map[string]string{
		"go.mod": goMod, // the configured command wins over detection
		"t.sh":   "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\necho '==== 1 failed, 4 passed in 0.10s ===='\nexit 1\n",
	})
	cfg.decode(`{"action":"tests","args":"\"a b\" c"}`, &r)
	if r.Success || r.Ecosystem != "custom" || r.Stdout != "arg:a b\narg:c\n==== 1 failed, 4 passed in 0.10s ====\n" ||
		countsOf(r) != [3]int{4, 1, 0} || !strings.HasSuffix(r.Command, "&& ./t.sh 'a b' c)") {
		t.Fatalf("configured: %+v", r)
	}
}

func TestTestOutputIsCappedAndTimedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{TestCommand: "head -c 50000 /dev/zero | tr '\\0' x"}, nil)
	var r testReport
	f.decode(`{"action":"tests"}`, &r)
	if !r.StdoutTruncated || !strings.HasSuffix(r.Stdout, "\n\n[output truncated to 40000 characters; 10000 characters omitted]") ||
		countsOf(r) != [3]int{-1, -1, -1} {
		t.Fatalf("truncated=%v tail=%q", r.StdoutTruncated, r.Stdout[len(r.Stdout)-80:])
	}
	slow := newFixture(t, Options{TestCommand: "sleep 30", TestTimeout: 300 * time.Millisecond}, nil)
	slow.decode(`{"action":"tests"}`, &r)
	if r.Success || r.Status != "TimedOut" || r.ExitCode != nil || !strings.Contains(r.Error, "timed out") {
		t.Fatalf("timeout: %+v", r)
	}
}

// CONTRACT.md §6.4: the exact tests refusals: unknown or missing action, the args shell-split error, no runner
// detected, a runner whose program is not installed.
func TestTestsRefusals(t *testing.T) {
	t.Parallel()
	empty := newFixture(t, Options{}, nil)
	goWS := newFixture(t, Options{}, map[string]string{"go.mod": goMod})
	noPython := newFixture(t, Options{Python: "codewhale-no-such-python"}, map[string]string{"test_a.py": "def test_a():\n    pass\n"})
	tests := []struct {
		f    *fixture
		in   string
		want string // prefix
	}{
		{empty, `{"action":"tests"}`, "No test runner detected in " + empty.tc.Workspace + ": looked for go.mod, Cargo.toml"},
		{empty, `{"action":"lint"}`, `Invalid input for tool 'Run': Unknown Run action "lint"; nothing was run. Pass one of: tests, verifiers.`},
		{empty, `{}`, "Invalid input for tool 'Run': Run requires an `action` parameter; nothing was run. Pass one of: tests, verifiers."},
		{goWS, `{"action":"tests","args":"'unterminated"}`, "Invalid input for tool 'Run': Failed to parse 'args' as shell-style tokens"},
		{goWS, `{"action":"tests","args":"-run $HOME"}`, "Invalid input for tool 'Run': Failed to parse 'args' as shell-style tokens: $HOME uses shell expansion"},
		{goWS, `{"action":"tests","all_features":true}`, "Invalid input for tool 'Run': all_features applies only to Cargo workspaces"},
		{noPython, `{"action":"tests"}`, "Tool 'Run' is not available: codewhale-no-such-python is not installed or not in PATH"},
		{goWS, `{"action":"tests","profile":"go"}`, "Invalid input for tool 'Run': unknown field 'profile' for action \"tests\""},
	}
	for _, tc := range tests {
		if _, refusal := tc.f.call(tc.in); !strings.HasPrefix(refusal, tc.want) {
			t.Errorf("%s\n got %q\nwant %q…", tc.in, refusal, tc.want)
		}
	}
}

// TestManyFailuresFitTheBudget: a run with more failures than the budget
// holds lists the first ones, counts the rest in failures_omitted and keeps
// failed = listed + omitted + unlisted.
// README.md "Tools": failed equals the failures listed plus failures_omitted past the cap of 50.
func TestManyFailuresFitTheBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package fx\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n\n")
	for i := range 120 {
		fmt.Fprintf(&b, "func TestF%03d(t *testing.T) { t.Log(strings.Repeat(\"noise \", 300)); t.Fatal(\"no\") }\n", i)
	}
	f := newFixture(t, Options{}, map[string]string{"go.mod": goMod, "a_test.go": b.String()})
	f.tc.Budget = 12000
	res, err := f.reg.Execute(context.Background(), f.tc, "Run", json.RawMessage(`{"action":"tests"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r testReport
	if err := json.Unmarshal([]byte(res.Content), &r); err != nil || len([]rune(res.Content)) > 12000 {
		t.Fatalf("%v, %d chars", err, len([]rune(res.Content)))
	}
	agree(t, r)
	if *r.Failed != 120 || len(r.Failures) == 0 || r.FailuresOmitted == 0 || r.Failures[0].Name != "TestF000" {
		t.Fatalf("failed %d, listed %d, omitted %d", *r.Failed, len(r.Failures), r.FailuresOmitted)
	}
}
