package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates more than the words it is given. Arithmetic reads every
// name in it as an expression in turn, and an array subscript there runs
// its substitutions: with x='a[$(cmd)]', $((x)), [[ x -eq 0 ]], ${s:x},
// ${a[x]}, let x and declare -i all run cmd. Builtins given a variable name
// resolve its subscript the same way ([ -v 'a[$(cmd)]' ], printf -v, read,
// declare, namerefs, ${!x}), and ${x@P} expands the substitutions in x's
// value like a prompt. This file follows those values where the script
// shows them; a value it cannot see that the command line itself made
// (x=$(cat f)) is opaque, and evaluating one needs explicit approval.

// maxArithNames bounds the names one arithmetic evaluation follows.
const maxArithNames = 64

// arith classifies an arithmetic expression as bash evaluates it.
func (c *classifier) arith(x syntax.ArithmExpr) {
	if x != nil {
		c.arithExpr(x, map[string]bool{})
	}
}

func (c *classifier) arithExpr(x syntax.ArithmExpr, seen map[string]bool) {
	switch x := x.(type) {
	case nil:
	case *syntax.BinaryArithm:
		c.arithExpr(x.X, seen)
		c.arithExpr(x.Y, seen)
	case *syntax.UnaryArithm:
		c.arithExpr(x.X, seen)
	case *syntax.ParenArithm:
		c.arithExpr(x.X, seen)
	case *syntax.Word:
		c.arithWord(x, seen)
	default:
		c.words(x)
	}
}

// arithWord classifies one operand: a bare name is evaluated through its
// value; any other word is expanded (its substitutions run) and the result
// is evaluated as an expression.
func (c *classifier) arithWord(w *syntax.Word, seen map[string]bool) {
	if name := w.Lit(); isName(name) {
		c.arithName(name, seen)
		return
	}
	switch v := c.word(w); {
	case v.literal && w.Lit() != "":
		// A number or operator as written is not evaluated again; a quoted
		// word is, after quote removal ((( 'a[$(cmd)]' ))).
	case v.known:
		c.arithText(v.s, seen)
	case v.opaque:
		c.flag(Explicit, "evaluates "+v.text()+" as arithmetic, and a value the classifier cannot see can run "+
			"commands there (through an array subscript)")
	}
}

func (c *classifier) arithName(name string, seen map[string]bool) {
	if seen[name] {
		return
	}
	seen[name] = true
	if c.secretVar(name) {
		c.flag(Explicit, "expands $"+name+", which holds a secret")
	}
	if s, ok := c.lookup(name); ok {
		c.arithText(s, seen)
	} else if c.isOpaque(name) {
		c.flag(Explicit, "evaluates $"+name+" as arithmetic, and its value, which the classifier cannot see, can run "+
			"commands there (through an array subscript)")
	}
}

// arithText evaluates a variable's value as an arithmetic expression.
func (c *classifier) arithText(s string, seen map[string]bool) {
	if !strings.ContainsAny(s, "$`[") && !hasNameChar(s) {
		return // digits and operators
	}
	if c.evaluated("arith", s) || !c.spend() {
		return
	}
	if len(seen) > maxArithNames || c.arithDepth >= maxDepth {
		c.flag(Explicit, "evaluates arithmetic through more variables than the classifier follows")
		return
	}
	c.arithDepth++
	defer func() { c.arithDepth-- }()
	x, err := c.parser().Arithmetic(strings.NewReader(s))
	if err != nil {
		if strings.ContainsAny(s, "$`") {
			c.flag(Explicit, "evaluates text as arithmetic that the classifier cannot read ("+short(s)+")")
		}
		return
	}
	c.arithExpr(x, seen)
}

// varRef classifies a variable name a builtin is given: its subscript
// (a[$(cmd)]) is expanded and evaluated when the builtin resolves it.
func (c *classifier) varRef(v value, what string) {
	if !v.known {
		if v.opaque {
			c.flag(Explicit, what+" is given a variable name the classifier cannot see ("+v.text()+"), whose subscript "+
				"could run commands")
		}
		return
	}
	if i := strings.IndexByte(v.s, '['); i > 0 && strings.HasSuffix(v.s, "]") {
		c.arithText(v.s[i+1:len(v.s)-1], map[string]bool{})
	}
}

// indirect classifies ${!name}: name's value names the variable expanded.
func (c *classifier) indirect(name string) {
	if s, ok := c.lookup(name); ok {
		c.varRef(lit(s), "${!"+name+"}")
	} else if c.isOpaque(name) {
		c.flag(Explicit, "${!"+name+"} expands a variable named by a value the classifier cannot see, whose subscript "+
			"could run commands")
	}
}

// promptOp reports ${name@P}, which expands name's value as a prompt.
func promptOp(p *syntax.ParamExp) bool {
	return p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P"
}

func (c *classifier) promptValue(name string) {
	if s, ok := c.lookup(name); ok {
		c.promptText(s, "${"+name+"@P}")
	} else if c.isOpaque(name) {
		c.flag(Explicit, "${"+name+"@P} runs the substitutions in a value the classifier cannot see")
	}
}

// promptText classifies a prompt string (${x@P}, PS4 under set -x): its
// backslash escapes are decoded, then its substitutions run.
func (c *classifier) promptText(s, what string) {
	if !strings.ContainsAny(s, "$`\\") {
		return
	}
	if c.depth >= maxDepth {
		c.flag(Explicit, what+" nests expansions deeper than the classifier follows")
		return
	}
	if c.evaluated("prompt", s) || !c.spend() {
		return
	}
	w, err := c.parser().Document(strings.NewReader(promptDecode(s)))
	if err != nil {
		c.flag(Explicit, what+" expands text the classifier cannot read")
		return
	}
	c.depth++
	c.word(w)
	c.depth--
}

// promptDecode decodes a prompt's backslash escapes as bash does before
// expanding it: \$ and octal escapes can spell a substitution; the others
// (\u, \w, \h …) expand to text bash quotes, written here as x.
func promptDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; {
		case ch == '$' || ch == '\\':
			b.WriteByte(ch)
		case ch >= '0' && ch <= '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(n))
			i = j - 1
		case ch == '[' || ch == ']':
		case ch == 'D' && i+1 < len(s) && s[i+1] == '{':
			if end := strings.IndexByte(s[i:], '}'); end >= 0 {
				i += end
			}
			b.WriteByte('x')
		default:
			b.WriteByte('x')
		}
	}
	return b.String()
}

// substitution classifies $(…) and returns what it prints. $(<file) is
// bash's way of reading a file: its text is the file's.
func (c *classifier) substitution(p *syntax.CmdSubst) source {
	if len(p.Stmts) == 1 && p.Stmts[0].Cmd == nil && len(p.Stmts[0].Redirs) == 1 && p.Stmts[0].Redirs[0].Op == syntax.RdrIn {
		v := c.word(p.Stmts[0].Redirs[0].Word)
		c.pathArg(v, false)
		if !v.known {
			return source{}
		}
		abs := c.absPath(v.s)
		if w, ok := c.files[abs]; ok {
			return w.source()
		}
		return source{file: true, path: abs}
	}
	var out source
	c.scoped(func() { out = c.stmts(p.Stmts) })
	return out
}

// parser is the classifier's parser for values (arithmetic, prompts),
// made once: each use parses to the end before the walk of its result.
func (c *classifier) parser() *syntax.Parser {
	if c.valueParser == nil {
		c.valueParser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	return c.valueParser
}

// evaluated reports whether text was evaluated as kind (arithmetic, a
// prompt) before with the variables as they are now, and notes that it
// has been: the same text with the same variables runs the same commands.
func (c *classifier) evaluated(kind, text string) bool {
	key := kind + "\x00" + text
	if g, ok := c.values[key]; ok && g == c.generation {
		return true
	}
	if c.values == nil {
		c.values = map[string]int{}
	}
	c.values[key] = c.generation
	return false
}

// setVar records an assignment (through a nameref, to its target). bash
// evaluates a value given to one of its integer variables as arithmetic,
// however it is assigned (OPTIND='a[$(cmd)]', read, for, printf -v).
func (c *classifier) setVar(name string, v value) {
	c.generation++
	name = c.resolveRef(name)
	if arithVar(name) {
		c.arithValue(v)
	}
	switch c.caseAttrs[name] {
	case 'l':
		v.s = strings.ToLower(v.s)
	case 'u':
		v.s = strings.ToUpper(v.s)
	}
	if v.known {
		c.vars = set(c.vars, name, v.s)
		delete(c.opaque, name)
		return
	}
	delete(c.vars, name)
	if v.opaque {
		c.opaque = set(c.opaque, name, true)
	} else {
		delete(c.opaque, name)
	}
}

// setCaseAttr records declare -l NAME (attr 'l'), -u ('u'), or neither
// (0, declare +l +u): every later assignment to NAME is lowercased or
// uppercased, as bash 5.2 does (declare -l x=RM makes x rm; the value x
// already holds stays as it is, and -l with -u sets neither).
func (c *classifier) setCaseAttr(name string, attr byte) {
	name = c.resolveRef(name)
	if attr == 0 {
		delete(c.caseAttrs, name)
		return
	}
	c.caseAttrs = set(c.caseAttrs, name, attr)
}

// resolveRef follows namerefs (declare -n) to the variable they name.
func (c *classifier) resolveRef(name string) string {
	for i := 0; i < 8; i++ {
		t, ok := c.refs[name]
		if !ok {
			break
		}
		name = t
	}
	return name
}

func (c *classifier) isOpaque(name string) bool { return c.opaque[c.resolveRef(name)] }

// isName reports a shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b != '_' && !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

func hasNameChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
}

func short(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// arithVar reports bash's variables whose assigned value is evaluated as
// arithmetic on assignment (checked with bash 5.2: SECONDS, LINENO,
// COLUMNS and LINES are not).
func arithVar(name string) bool {
	switch name {
	case "OPTIND", "RANDOM", "SRANDOM", "HISTCMD":
		return true
	}
	return false
}
