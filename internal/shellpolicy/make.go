package shellpolicy

import (
	"path"
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// make runs its recipes through the shell, and $(shell …) and != while it
// reads the makefile. A makefile this command line gives make (make -f -
// <<< …, a file it just wrote, --eval) is classified as those commands; a
// makefile on disk, the project's own, only carries a hard block over (as
// sh FILE does, scanFile); one the classifier cannot see needs explicit
// approval. No library reads makefiles, so this file reads GNU make's
// grammar ("Writing Rules" and "How to Use Variables" in its manual) far
// enough to find the commands.

// make classifies make's command line.
func (c *classifier) make(args []value, stdin *source) {
	c.atLeast(Ordinary)
	m := makeArgs{dir: c.cwd, vars: map[string]string{}}
	m.parse(args)
	for _, e := range m.evals {
		if !e.known {
			c.flag(Explicit, "make --eval runs text the classifier cannot see ("+e.text()+")")
			continue
		}
		c.makefile(e.s, m.vars, "make --eval", true)
	}
	if mf, ok := c.makefilesVar(); ok {
		// MAKEFILES: makefiles make reads before the others, names
		// separated by blanks.
		for _, name := range strings.Fields(mf.s) {
			c.makeFile(lit(name), m, stdin)
		}
		if !mf.known {
			c.flag(Explicit, "MAKEFILES names makefiles the classifier cannot see")
		}
	}
	if len(m.files) == 0 && m.dir != "" {
		for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
			p := path.Join(m.dir, name)
			if _, ok := c.files[p]; ok || fileExists(p) {
				m.files = append(m.files, lit(p))
				break
			}
		}
	}
	for _, f := range m.files {
		c.makeFile(f, m, stdin)
	}
	for _, p := range m.programs {
		v, what := p.v, "make "+p.name
		if flags, ok := m.vars[".SHELLFLAGS"]; ok && p.name == "SHELL" && v.known {
			v.s, what = v.s+" "+flags, what+" .SHELLFLAGS" // make runs $(SHELL) $(.SHELLFLAGS) RECIPE
		}
		c.namedProgram(what, v, true)
	}
}

// makeProgramVar reports a variable whose value is a program make runs, so
// that an override on the command line (make SHELL=… CC=…) is judged as
// the command it names, as go test -exec is (toolchain.go): SHELL runs
// every recipe, MAKE every recursive make, the rest the built-in rules
// (GNU make's "Variables Used by Implicit Rules").
func makeProgramVar(name string) bool {
	if _, ok := makeDefault(name); ok {
		return true
	}
	switch name {
	case "SHELL", "FC", "M2C", "PC", "CO", "GET", "LINT", "MAKEINFO", "TEX", "TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE",
		"CTANGLE":
		return true
	}
	return false
}

func (c *classifier) makeFile(f value, m makeArgs, stdin *source) {
	what := "make -f " + f.s
	var src source
	switch {
	case !f.known || m.dir == "" && !path.IsAbs(f.s):
		c.flag(Explicit, "make reads a makefile the classifier cannot see ("+f.text()+")")
		return
	case stdinPath(f.s):
		if stdin == nil {
			return
		}
		src = *stdin
	default:
		abs := path.Join(m.dir, f.s)
		if path.IsAbs(f.s) {
			abs = path.Clean(f.s)
		}
		if c.calling["make "+abs] {
			return // included again
		}
		c.calling = set(c.calling, "make "+abs, true)
		defer func() { c.calling["make "+abs] = false }()
		w, ok := c.files[abs]
		if !ok {
			if c.changedFile(abs, what) {
				return
			}
			if b, read := readSmall(abs); read {
				c.makeText(string(b), m, what, false)
			}
			return
		}
		src = w.source()
	}
	switch {
	case src.download:
		c.flag(Blocked, "runs a downloaded makefile ("+what+")")
	case src.file:
		if b, read := readSmall(src.path); read {
			c.makeText(string(b), m, what, false)
		}
	case !src.visible:
		c.flag(Explicit, what+" runs a makefile whose content the classifier cannot see")
	default:
		c.makeText(src.text, m, what, true)
	}
}

// makeText classifies a makefile's text and the makefiles it includes
// (include, -include, sinclude), each judged as the makefile that names it
// is: in full when the command line gave it, else for a hard block.
func (c *classifier) makeText(text string, m makeArgs, what string, full bool) {
	c.makefile(text, m.vars, what, full)
	if c.depth >= maxDepth {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			continue // a recipe line
		}
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "include" && f[0] != "-include" && f[0] != "sinclude" {
			continue
		}
		for _, name := range f[1:] {
			if strings.HasPrefix(name, "#") {
				break
			}
			if strings.ContainsAny(name, "$*?[") {
				if full {
					c.flag(Explicit, what+" includes a makefile the classifier cannot see ("+name+")")
				}
				continue
			}
			c.depth++
			c.makeFile(lit(name), m, nil)
			c.depth--
		}
	}
}

// makefile classifies the commands of a makefile's text: every one when
// the command line gave the text (full), else only a hard block.
func (c *classifier) makefile(text string, vars map[string]string, what string, full bool) {
	cmds, complete := makeCommands(text, vars)
	if !complete && full {
		c.flag(Explicit, what+" expands more references than the classifier follows")
	}
	for _, cmd := range cmds {
		if full {
			c.nested(cmd, what)
		} else {
			c.scanText("sh", cmd, what)
		}
	}
}

// makeArgs is make's command line taken apart.
type makeArgs struct {
	dir          string // the directory make runs in ("" when unknown)
	files, evals []value
	vars         map[string]string // VAR=VALUE operands
	programs     []makeVar         // the VAR=VALUE operands that name a program (makeProgramVar)
}

// makeVar is one VAR=VALUE operand, VALUE as v.s.
type makeVar struct {
	name string
	v    value
}

func (m *makeArgs) parse(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func(rest string) value {
			if rest != "" {
				v := a
				v.s = rest
				return v
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return value{}
		}
		switch name, val, eq := strings.Cut(a.s, "="); {
		case name == "--file" || name == "--makefile":
			m.files = append(m.files, next(val))
		case name == "--directory":
			m.chdir(next(val))
		case name == "--eval":
			m.evals = append(m.evals, next(val))
		case strings.HasPrefix(a.s, "--"):
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
		letters:
			for j := 1; j < len(a.s); j++ {
				if k := strings.IndexByte("CEfIoW", a.s[j]); k >= 0 {
					v := next(a.s[j+1:])
					switch a.s[j] {
					case 'C':
						m.chdir(v)
					case 'E':
						m.evals = append(m.evals, v)
					case 'f':
						m.files = append(m.files, v)
					}
					break letters
				}
			}
		case eq:
			if a.known {
				m.vars[name] = val
			}
			if makeProgramVar(name) {
				v := a
				v.s = val
				m.programs = append(m.programs, makeVar{name, v})
			}
		}
	}
}

func (m *makeArgs) chdir(v value) {
	switch {
	case !v.known || m.dir == "" && !path.IsAbs(v.s):
		m.dir = ""
	case path.IsAbs(v.s):
		m.dir = path.Clean(v.s)
	default:
		m.dir = path.Join(m.dir, v.s)
	}
}

var makeAssign = lazyre.New(`^(?:override\s+|export\s+)*([A-Za-z0-9_.-]+)\s*(=|:=|::=|:::=|\?=|\+=|!=)\s*(.*)$`)

// makeDefault is the value of GNU make's built-in variables that name
// programs.
func makeDefault(name string) (string, bool) {
	switch name {
	case "CC":
		return "cc", true
	case "CXX":
		return "g++", true
	case "CPP":
		return "cc -E", true
	case "RM":
		return "rm -f", true
	case "MAKE":
		return "make", true
	case "AR", "LD", "AS", "LEX", "YACC":
		return strings.ToLower(name), true
	}
	return "", false
}

// makeCommands lists the shell commands a makefile runs: its recipe lines
// (after a tab, or after ; on a rule line) with make's expansion done,
// $(shell …) calls and the commands of != assignments; complete is false
// when the expansion went past maxMakeSteps.
func makeCommands(text string, cmdVars map[string]string) (cmds []string, complete bool) {
	e := &makeExpander{vars: map[string]string{}}
	for k, v := range cmdVars {
		e.vars[k] = v
	}
	var recipes []string
	define := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case define:
			define = trimmed != "endef"
		case strings.HasPrefix(trimmed, "define "):
			define = true
		case strings.HasPrefix(line, "\t"):
			recipes = append(recipes, line[1:])
		case trimmed == "" || trimmed[0] == '#':
		default:
			if m := makeAssign().FindStringSubmatch(trimmed); m != nil {
				e.assign(m[1], m[2], m[3])
			} else if colon := strings.IndexByte(trimmed, ':'); colon >= 0 {
				if semi := strings.IndexByte(trimmed[colon:], ';'); semi >= 0 {
					recipes = append(recipes, trimmed[colon+semi+1:])
				}
			}
		}
	}
	for _, r := range recipes {
		if x := strings.TrimLeft(strings.TrimSpace(r), "@-+ \t"); x != "" {
			e.cmds = append(e.cmds, e.expand(x, 0))
		}
	}
	return e.cmds, e.steps <= maxMakeSteps
}

// makeExpander expands make's $(VAR), ${VAR}, $X and $$, collecting the
// commands $(shell …) runs on the way.
type makeExpander struct {
	vars  map[string]string
	cmds  []string
	steps int // references expanded, bounded by maxMakeSteps
}

// maxMakeSteps bounds the references one makefile's expansion follows
// (X = $(Y)$(Y), Y = $(Z)$(Z) … doubles at each level).
const maxMakeSteps = 4096

// unknownMake stands for a value make computes that the classifier does
// not (an automatic variable, a function's result).
const unknownMake = `"$__codewhale_make_value"`

func (e *makeExpander) assign(name, op, val string) {
	switch op {
	case "!=":
		e.cmds = append(e.cmds, e.expand(val, 0))
		e.vars[name] = unknownMake
	case "?=":
		e.expand(val, 0) // for the $(shell …) calls it makes when used
		if _, ok := e.vars[name]; !ok {
			e.vars[name] = val
		}
	case "+=":
		e.vars[name] = strings.TrimSpace(e.vars[name] + " " + val)
	default:
		if op != "=" {
			val = e.expand(val, 0) // :=, ::= expand at once; $(shell …) runs now
		}
		e.vars[name] = val
	}
}

func (e *makeExpander) expand(s string, depth int) string {
	if depth > 8 || !strings.Contains(s, "$") {
		return s
	}
	if e.steps++; e.steps > maxMakeSteps {
		return unknownMake
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case '$':
			b.WriteByte('$')
		case '(', '{':
			end := matchingClose(s, i)
			b.WriteString(e.reference(s[i+1:min(end, len(s))], depth))
			i = end
		default:
			b.WriteString(e.variable(string(ch), depth))
		}
	}
	return b.String()
}

// reference expands the inside of $(…): a function call or a variable.
func (e *makeExpander) reference(inner string, depth int) string {
	if fn, args, ok := strings.Cut(inner, " "); ok && !strings.ContainsAny(fn, ":=") {
		args = e.expand(args, depth+1)
		if fn == "shell" {
			e.cmds = append(e.cmds, args)
		}
		return unknownMake
	}
	return e.variable(e.expand(inner, depth+1), depth)
}

func (e *makeExpander) variable(name string, depth int) string {
	if v, ok := e.vars[name]; ok {
		return e.expand(v, depth+1)
	}
	if v, ok := makeDefault(name); ok {
		return v
	}
	if strings.ContainsAny(name, "@<^?*+|%") {
		return unknownMake // automatic variables: the target, the prerequisites
	}
	return ""
}

// matchingClose is the index of the ) or } closing s[open], or the end.
func matchingClose(s string, open int) int {
	want, depth := map[byte]byte{'(': ')', '{': '}'}[s[open]], 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case s[open]:
			depth++
		case want:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// makefilesVar is the MAKEFILES this command line gives make (before it,
// or exported earlier), if any.
func (c *classifier) makefilesVar() (value, bool) {
	if v, ok := c.prefix["MAKEFILES"]; ok {
		return v, true
	}
	if s, ok := c.vars["MAKEFILES"]; ok {
		return lit(s), true
	}
	if c.opaque["MAKEFILES"] {
		return value{}, true
	}
	return value{}, false
}
