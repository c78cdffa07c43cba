// Package shellpolicy is the one classifier of shell commands the agent
// writes (Bash runs, task gates, permission rules). It parses the command
// with mvdan.cc/sh/v3/syntax and sorts it into one of four classes:
//
//   - ReadOnly: provably only inspects the machine; runs without approval.
//     Proven by an allow-list (readonly.go): readers and their harmless
//     options only, literal words but for plain $NAME, no substitution,
//     arithmetic or ${…} operator, no function or loop.
//   - Ordinary: may change things; needs ordinary approval.
//   - Explicit: destructive but legitimate (git push --force, git clean -fdx,
//     rm -rf .git), reads or prints a secret, raises privileges, or runs code
//     the parser cannot see (eval "$X", … | sh); a person must approve it in
//     every posture but Full Access.
//   - Blocked: a catastrophe (deleting / or the home directory, writing a
//     disk, a fork bomb, curl | sh); never runs, in any posture.
//
// The classifier is conservative where it must be: anything it cannot prove
// harmless is not ReadOnly, and it looks through the usual disguises where
// they are visible in the text: eval and sh -c of literal scripts, command
// names computed by $(echo …) or variables assigned earlier, base64/rev
// decoded scripts piped into a shell, inline interpreter code (python3 -c,
// perl -e, node -e), xargs and find -exec, the programs a toolchain's
// flags name (go test -exec, -toolexec, cargo --config's runner;
// toolchain.go). It evaluates what would run:
// functions per call, loops per item, makefiles on stdin, command-valued
// variables, scripts the command writes, values bash evaluates as
// arithmetic or prompts (expand.go). A payload it cannot see is Explicit,
// never Ordinary by default; the OS sandbox stands behind it.
package shellpolicy

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Class is how much authority a command needs.
type Class int

const (
	ReadOnly Class = iota
	Ordinary
	Explicit
	Blocked
)

func (c Class) String() string {
	return [...]string{"read-only", "ordinary", "explicit", "blocked"}[c]
}

// Verdict is the classification of one command: its class and, for
// Explicit and Blocked, the reasons (short model-readable phrases).
type Verdict struct {
	Class   Class
	Reasons []string
}

// Reason joins the reasons into one sentence fragment.
func (v Verdict) Reason() string { return strings.Join(v.Reasons, "; ") }

// Env is what the classifier knows about where the command runs. A nil
// predicate is the process-wide credential guard's (internal/secrets), so
// a forgotten field never turns the checks off; tests inject their own.
type Env struct {
	Home      string              // the user's home directory (~)
	Workspace string              // the workspace root
	Getenv    func(string) string // the agent's environment, for $VAR in paths
	// SecretPath reports a file or directory that holds credentials.
	SecretPath func(abs string) (reason string, ok bool)
	// ProtectedWrite reports a path whose change needs explicit approval
	// (.git/**, .codewhale/**, the user's configuration).
	ProtectedWrite func(abs, workspace string) (reason string, ok bool)
	// SecretVar reports an environment variable name that holds a secret.
	SecretVar func(name string) bool
}

// BlockedPrefix starts the model-visible content of a command refused as a
// hard block (CONTRACT.md §6.1, exact).
const BlockedPrefix = "BLOCKED: This command was blocked for safety reasons."

// BlockedContent is the model-visible refusal of a Blocked verdict.
func BlockedContent(reasons []string) string {
	var b strings.Builder
	b.WriteString(BlockedPrefix)
	b.WriteString("\n\nReasons:\n")
	for _, r := range reasons {
		b.WriteString("- " + r + "\n")
	}
	b.WriteString("\nNothing was run. This block holds in every permission posture, Full Access included. Use a " +
		"narrower, non-destructive command, or ask the user to run this one themselves.")
	return b.String()
}

// ClassifyArgv classifies the program and arguments argv, run without a
// shell in cwd, as Classify classifies the command line that quotes each
// word: what a caller that runs an argv (a Run gate, rlm's interpreter)
// asks, so no caller quotes words itself.
func (e *Env) ClassifyArgv(argv []string, cwd string) Verdict {
	words := make([]string, len(argv))
	for i, w := range argv { // every word quoted: an argv has no assignments or operators
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return e.Classify(strings.Join(words, " "), cwd)
}

// Classify classifies command as run in directory cwd ("" = the
// workspace). A command that does not parse is Ordinary: the shell will
// reject it too, and nothing about it is proven harmless.
func (e *Env) Classify(command, cwd string) (v Verdict) {
	defer func() {
		// The classifier fails closed: a bug on hostile input must not
		// turn a command into an unchecked one.
		if p := recover(); p != nil {
			v = Verdict{Class: Explicit, Reasons: []string{fmt.Sprintf("the command classifier failed on this command (%v)", p)}}
		}
	}()
	if strings.TrimSpace(command) == "" {
		return Verdict{Class: Ordinary}
	}
	f, err := parseCommand(command)
	if err != nil {
		return Verdict{Class: Ordinary}
	}
	if cwd == "" {
		cwd = e.Workspace
	}
	c := newClassifier(e, cwd, 0)
	c.scripts = map[string]*syntax.File{command: f}
	c.stmts(f.Stmts)
	if len(f.Stmts) == 0 || c.class == ReadOnly && !c.readOnlyShape(f) {
		c.atLeast(Ordinary)
	}
	return c.verdict()
}

// Classify classifies command with no knowledge of paths or secrets (tests
// and callers that only need the hard blocks).
func Classify(command string) Verdict { return (&Env{}).Classify(command, "") }

func parse(command string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// lastParse is the tree of the command parsed last by a public entry
// point: a Bash call is classified (Env.Classify) and matched against
// permission rules (Commands) with the same text, and the second asks
// here instead of parsing again. Nothing writes to a parsed tree, so
// callers on other goroutines may walk it together.
var lastParse struct {
	sync.Mutex
	command string
	f       *syntax.File
}

// parseCommand is parse with lastParse in front of it.
func parseCommand(command string) (*syntax.File, error) {
	lastParse.Lock()
	if lastParse.f != nil && lastParse.command == command {
		f := lastParse.f
		lastParse.Unlock()
		return f, nil
	}
	lastParse.Unlock()
	f, err := parse(command)
	if err != nil {
		return nil, err
	}
	lastParse.Lock()
	lastParse.command, lastParse.f = command, f
	lastParse.Unlock()
	return f, nil
}

// errNotShell is a cached parse failure (parseScript).
var errNotShell = errors.New("not shell")

// parseScript parses a script this command runs (eval, sh -c, a decoded
// pipe, a string in inline code) once per classification: a loop or a
// function called many times runs the same text again.
func (c *classifier) parseScript(script string) (*syntax.File, error) {
	if f, ok := c.scripts[script]; ok {
		if f == nil {
			return nil, errNotShell
		}
		return f, nil
	}
	f, err := parse(script)
	if c.scripts != nil {
		c.scripts[script] = f // nil when it does not parse
	}
	return f, err
}

// maxDepth bounds nested scripts (eval of sh -c of base64 of …).
const maxDepth = 8

// classifier accumulates one verdict while walking a script in order. It
// tracks what a reader of the script can know statically: literal
// variable assignments and the directory a literal cd moved to.
type classifier struct {
	env         *Env
	cwd         string
	oldCwd      string   // the directory before the last cd ($OLDPWD, ~-, cd -); "" when unknown
	dirStack    []string // pushd's stack below cwd, for popd
	cleanDir    string   // the last cwd cleanPath held (cleanCwd)
	vars        map[string]string
	opaque      map[string]bool   // variables this script set to a value nobody can see (x=$(cat f), read x)
	refs        map[string]string // namerefs (declare -n NAME=TARGET)
	ints        map[string]bool   // integer variables (declare -i): their assignments are arithmetic
	funcs       map[string]*syntax.Stmt
	aliases     map[string]string       // alias NAME=TEXT this script defined (callAlias)
	caseAttrs   map[string]byte         // declare -l ('l') and -u ('u') variables (setCaseAttr)
	posix       bool                    // bash's POSIX mode is on (set -o posix, POSIXLY_CORRECT=…)
	recorded    map[string]value        // hash -p, BASH_CMDS[NAME]= and history -s entries later commands use (builtins.go)
	calling     map[string]bool         // functions whose body is being classified for a call
	params      []string                // positional parameters of a sh -c script ($0 first); nil when unknown
	files       map[string]written      // files this script wrote before a later part reads or runs them
	links       map[string]string       // symlinks this script made (ln -s)
	changes     changes                 // files programs of this command line may have changed (changes.go)
	lstats      int                     // symlink look-ups made so far
	valueParser *syntax.Parser          // parser (expand.go)
	values      map[string]int          // texts evaluated as arithmetic or a prompt, at which generation (evaluated)
	generation  int                     // assignments so far
	gitDirs     map[string]bool         // implicitGitDir's answer per directory, for this command line
	steps       *int                    // statements classified so far, shared with nested classifiers (maxSteps)
	scripts     map[string]*syntax.File // scripts parsed in this classification, shared likewise (parseScript)
	prefix      map[string]value        // GIT_DIR, GIT_WORK_TREE, CURL_HOME … assigned before the command being classified
	depth       int
	// arithDepth counts values evaluated as arithmetic inside each other.
	arithDepth int
	class      Class
	reasons    []string
}

func newClassifier(e *Env, cwd string, depth int) *classifier {
	// The maps are made on their first write (set): most commands write
	// none, and a nil map also makes scoped's copies free.
	return &classifier{env: e, cwd: cwd, steps: new(int), depth: depth}
}

// sub is a classifier for a script this one reads (a file it runs, a
// string in inline code), sharing its budget of steps.
func (c *classifier) sub() *classifier {
	s := newClassifier(c.env, c.cwd, c.depth+1)
	s.steps = c.steps
	s.scripts = c.scripts
	return s
}

// maxSteps bounds the statements one classification walks, loops and
// function calls included: a script built to make the classifier loop
// for long needs explicit approval instead.
const maxSteps = 4096

// spend counts one statement and reports whether the budget allows it.
func (c *classifier) spend() bool {
	if *c.steps++; *c.steps <= maxSteps {
		return true
	}
	c.flag(Explicit, "the command is too long or loops too much for the classifier to follow")
	return false
}

func (c *classifier) verdict() Verdict {
	v := Verdict{Class: c.class}
	if c.class >= Explicit {
		// Only the reasons of the deciding class: a blocked command's
		// refusal should not list the approvals it would also have needed.
		v.Reasons = c.reasons
	}
	return v
}

// atLeast raises the class without a reason (ReadOnly → Ordinary).
func (c *classifier) atLeast(k Class) {
	if k > c.class {
		c.class = k
	}
}

// flag raises the class to k with reason r.
func (c *classifier) flag(k Class, r string) {
	switch {
	case k > c.class:
		c.class, c.reasons = k, []string{r}
	case k == c.class && k >= Explicit:
		for _, x := range c.reasons {
			if x == r {
				return
			}
		}
		c.reasons = append(c.reasons, r)
	}
}

// nested classifies script (eval, sh -c, a decoded pipe) as part of this
// command, with this command's knowledge of variables and directory.
func (c *classifier) nested(script, what string) { c.nestedWith(script, what, c.params) }

// nestedWith classifies script with positional parameters params (sh -c
// SCRIPT NAME ARGS…).
func (c *classifier) nestedWith(script, what string, params []string) {
	if c.depth >= maxDepth {
		c.flag(Explicit, what+" nests scripts deeper than the classifier follows")
		return
	}
	f, err := c.parseScript(script)
	if err != nil {
		c.flag(Explicit, what+" runs text that does not parse as shell")
		return
	}
	saved := c.params
	c.depth++
	c.params = params
	c.stmts(f.Stmts)
	c.params = saved
	c.depth--
	c.atLeast(Ordinary)
}
