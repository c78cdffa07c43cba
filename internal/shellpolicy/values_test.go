package shellpolicy

import (
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// TestValues holds the values the classifier computes as bash does (each
// checked with bash 5.2 and a stand-in rm that only echoes): what read
// takes of its input (-n, -N, -d, -r, IFS, an IFS assigned before read),
// x+=v, the assigning expansions ${x:=v}, assignments before a special
// builtin under POSIX mode, brace sequences, globs in a command name or an
// operand matched against the filesystem, and the parameter operators
// (${x%p}, ${x:o:l}, ${x/p/r}, ${x^^} …) on a known value. A value got
// wrong lets rm -rf / through as Ordinary: every hostile row is Blocked,
// and the benign rows keep their verdicts.
// TestValues holds the values the classifier computes as bash does (each
// checked with bash 5.2 and a stand-in rm that only echoes): what read
// takes of its input (-n, -N, -d, -r, IFS, an IFS assigned before read),
// x+=v, the assigning expansions ${x:=v}, assignments before a special
// builtin under POSIX mode, brace sequences, globs in a command name or an
// operand matched against the filesystem, and the parameter operators
// (${x%p}, ${x:o:l}, ${x/p/r}, ${x^^} …) on a known value. A value got
// wrong lets rm -rf / through as Ordinary: every hostile row is Blocked,
// and the benign rows keep their verdicts.
func TestValuesProbe(t *testing.T) {
	for _, s := range []string{"echo $HOME", "echo $HOME -rf /", "x=a; x=b true; echo $x", "x=b true", "echo ${x:-a}", "echo ${HOME}"} {
		v := testEnv().Classify(s, "")
		t.Logf("%-40s %v %s", s, v.Class, v.Reason())
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	checkClasses(t, []classCase{
		// read
		{"read -n 2 x <<< rmxx; $x -rf /", Blocked, ""},
		{"read -N 2 x <<< rmxx; $x -rf /", Blocked, ""},
		{"read -d x y <<< rmxq; $y -rf /", Blocked, ""},
		{"read -rn2 x <<< rmxx; $x -rf /", Blocked, ""},
		{"read -n 2 x <<< 'r\\mxx'; $x -rf /", Blocked, ""},
		{"read -rn 3 x <<< 'r\\mxx'; $x -rf /", Ordinary, ""}, // r\m, no such command
		{"IFS=, read a b c <<< 'rm,-rf,/'; $a $b $c", Blocked, ""},
		{"IFS=, read a b <<< 'rm,/,'; $a -rf $b", Blocked, ""},
		{"read a b <<< 'x rm'; $b -rf /", Blocked, ""},
		{"read -a a <<< 'rm -rf /'; $a -rf /", Blocked, ""},
		{"read x <<< 'rm -rf'; echo $x", Ordinary, ""},
		{"read x; echo $x", Ordinary, ""},
		{"printf ' rm\\n' | while IFS= read -r x; do $x -rf /; done", Blocked, ""},      // " rm", split
		{"printf ' rm\\n' | while IFS= read -r x; do \"$x\" -rf /; done", Ordinary, ""}, // " rm", no such command
		{"printf ' rm\\n' | while read -r x; do \"$x\" -rf /; done", Blocked, ""},
		{"printf 'r\\\\m\\n' | while read x; do $x -rf /; done", Blocked, ""},
		{"printf 'r,m\\n' | while IFS=$y read x; do $x -rf /; done", Blocked, ""},
		// x+=v
		{"x=r; x+=m; $x -rf /", Blocked, ""},
		{"x=rm; x+=(a); $x -rf /", Blocked, ""},
		{"x=; x+=rm; $x -rf /", Blocked, ""},
		{"x=a; x+=b; echo $x", ReadOnly, ""},
		// ${x:=v} (an expansion with an operator is never read-only)
		{"x=; : ${x:=rm}; $x -rf /", Blocked, ""},
		{"unset x; : ${x=rm}; $x -rf /", Blocked, ""},
		{"x=; echo ${x:-rm} -rf /", Ordinary, ""},
		{"x=; ${x:-rm} -rf /", Blocked, ""},
		// case attributes
		{"declare -l x=RM; $x -rf /", Blocked, ""},
		{"typeset -l x=RM; $x -rf /", Blocked, ""},
		{"declare -u x; x=rm; ${x,,} -rf /", Blocked, ""},
		{"declare -l x; x=RM; $x -rf /", Blocked, ""},
		{"local -l x=RM; $x -rf /", Blocked, ""},
		{"declare -u x=rm; $x -rf /", Ordinary, ""}, // RM, no such command
		{"o=-l; declare $o x=RM; $x -rf /", Blocked, ""},
		// an assignment before a special builtin
		{"set -o posix; x=ls; x=rm :; $x -rf /", Blocked, ""},
		{"x=ls; x=rm :; $x -rf /", Blocked, ""},
		{"x=rm; x=ls :; $x -rf /", Blocked, ""},
		{"set -o posix; x=rm; x=ls true; $x -rf /", Blocked, ""},
		{"x=ls; f() { $x -rf /; }; x=rm f", Blocked, ""},
		{"x=a; x=b true; echo $x", Ordinary, ""},
		{"sh -c 'x=ls; x=rm :; $x -rf /'", Blocked, ""},
		{"x=rm eval '$x -rf /'", Blocked, ""},
		{"set -o posix; x=rm; x=ls :; $x -rf /", Ordinary, ""}, // ls -rf /
		{"(set -o posix); x=ls; x=rm :; $x -rf /", Blocked, ""},
		// brace sequences
		{"r{m..m} -rf /", Blocked, ""},
		{"rm -rf /{h..h}ome", Blocked, ""},
		{"{r,}m -rf /", Blocked, ""},
		{"rm -rf /{a..z}in", Blocked, ""},
		{"echo {1..3}", ReadOnly, ""},
		{"echo {a..e..2} {01..10}", ReadOnly, ""},
		{"rm -rf /{Z..h}ome", Blocked, ""},
		// parameter operators
		{`rm -rf "${HOME%/*}"`, Blocked, ""},
		{`rm -rf "${HOME:0:1}"`, Blocked, ""},
		{`rm -rf "${HOME//u/}"`, Blocked, ""},
		{`rm -rf "${HOME%%u}"`, Blocked, ""},
		{`rm -rf "${HOME/#\/home\/u/\/}"`, Blocked, ""},
		{`x=RM; ${x,,} -rf /`, Blocked, ""},
		{`x=rM; ${x@L} -rf /`, Blocked, ""},
		{`x=mr; ${x: -1}${x:0:1} -rf /`, Blocked, ""},
		{`x='\x72m'; ${x@E} -rf /`, Blocked, ""},
		{"echo ${HOME%/*}", Ordinary, ""},
		{"echo ${HOME##*/} ${#HOME} ${HOME:1:3}", Ordinary, ""},
		// globs
		{"/bin/r? -rf /", Blocked, ""},
		{"/bin/[r]m -rf ~", Blocked, ""},
		{"/usr/bin/r[m] -rf ~", Blocked, ""},
		{"rm -rf /[h]ome", Blocked, ""},
		{"rm -rf /ho*", Blocked, ""},
		{"ls *.go", ReadOnly, ""},
		{"ls /ho*", ReadOnly, ""},
	})
}

// TestValuesAreWhatBashComputes holds the classifier's value of $x after
// each script to bash's own (with HOME=/home/u): read's options and IFS,
// x+=v, the assigning expansions, the case attributes, brace sequences
// and the parameter operators.
func TestValuesAreWhatBashComputes(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		e2e.Missing(t, "bash")
	}
	scripts := []string{
		"read -n 2 x <<< rmxx", "read -N 2 x <<< rmxx", "read -d x x <<< rmxq", "read -n 2 x <<< 'r\\mxx'",
		"read -rn 3 x <<< 'r\\mxx'", "read -N 4 x <<< ' rm  '", "read -n 4 x <<< ' rm  '", "read x <<< '  rm  '",
		"IFS=, read a x c <<< 'rm,-rf,/'", "IFS=, read a x <<< 'x,y,'", "IFS=, read a x <<< 'x,y,,'",
		"IFS=, read x <<< 'x,'", "IFS=, read a x <<< ',x,y'", "read a x <<< '  x   y  z  '",
		"IFS=', ' read a x <<< ' x , y , z , '", "IFS= read x b <<< ' x y '", "read x <<< 'r\\m \\\nx'",
		"read x b <<< 'r\\ m x'", "read -d x x <<< 'r\\xmxq'", "read -n 3 a x <<< 'r m x'", "read -dxy x <<< 'rmyxq'",
		"read -n2 -N3 x <<< 'rmxxx'", "read -N3 -n2 x <<< 'rmxxx'", "read -n 0 x <<< 'rmxxx'",
		"IFS=x read -N 3 x <<< 'rxm'", "read -a x <<< 'rm -rf /'",
		"x=r; x+=m", "x=rm; x+=(a)", "x=; x+=rm",
		"x=; : ${x:=rm}", "unset x; : ${x=rm}", "x=; : ${x=rm}", "x=a; : ${x:=rm}",
		"declare -l x=RM", "declare -u x=rm", "declare -l x; x=RM", "declare -l -u x=Ab", "x=RM; declare -l x",
		"x=$(echo r{m..m})", "x=$(printf '%s ' {a..e..2} {01..10} {3..1})", "x=$(printf '%s ' {-2..02} {1..5..-2} {x..x})", "x=$(printf '%s ' {r..a} {A..c..3})",
		`x=${HOME%/*}`, `x=${HOME:0:1}`, `x=${HOME//u/}`, `x=${HOME##*/}`, `x=${HOME#*/}`, `x=${HOME%%/*}`,
		`x=${HOME: -1}`, `x=${HOME:1}`, `x=${HOME:2:-1}`, `x=${HOME/#\/home/X}`, `x=${HOME/%u/rm}`, `x=${HOME^^}`,
		`x=${HOME^}`, `x=${#HOME}`, `y=aXbX; x=${y//[X]/-}`, `y=aXbX; x=${y/'X'/y}`, `y=ab; x=${y:5}`,
		`y=ab; x=${y: -5}`, `y='\x72m'; x=${y@E}`, `x=${HOME@U}`, `y=RM; x=${y,,}`, `y=rm; x=${y^}`,
		`x=${HOME%"/u"}`, `x=${HOME#/[a-h]*/}`, `x=${HOME//[!/]/x}`, `x=${HOME/o*/}`, `y=; x=${y:-d}${y-d}${y:+a}${y+a}`,
	}
	for _, s := range scripts {
		cmd := exec.Command(bash, "-c", s+`; printf %s "$x"`)
		cmd.Env = []string{"HOME=/home/u", "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", s, err)
		}
		f, err := syntax.NewParser().Parse(strings.NewReader(s), "")
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		c := newClassifier(testEnv(), "/tmp", 0)
		c.stmts(f.Stmts)
		if got, ok := c.lookup("x"); !ok || got != string(out) {
			t.Errorf("after %q, x = %q (known %v); bash: %q", s, got, ok, out)
		}
	}
}

// TestRelativeGlobsExpandInTheWorkingDirectory holds that a relative glob
// is matched where the command runs (here /, where h[o]me is /home).
func TestRelativeGlobsExpandInTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	// /usr and /bin/rm are on every machine the tests run on; /home is not
	// (a minimal container may lack it).
	checkClassesIn(t, testEnv(), "/", []classCase{
		{"rm -rf u[s]r", Blocked, "rm -r usr"},
		{"rm -rf us?", Blocked, "rm -r usr"},
		{"cd /bin && ./r[m] -rf /", Blocked, ""},
		{"ls u*", ReadOnly, ""},
	})
}
