package shellpolicy

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codewhale/codewhale/internal/secrets"
)

// value is what the classifier knows of one word after expansion.
type value struct {
	s        string // the value where known; otherwise the word as written
	known    bool   // s is (very likely) what the shell produces
	literal  bool   // no expansion at all: only literal and quoted text
	glob     bool   // unquoted glob characters
	download bool   // part of it comes from a download ($(curl …))
	splits   bool   // an unquoted expansion (or "$@"): the shell splits the result into fields
	// opaque: part of it is text nobody can see that this command line
	// produced (the unseen output of a substitution, a variable it set
	// so), which may hold anything, code for an array subscript included.
	opaque bool
	proc   *source // the output of a process substitution <(…) the word is
	w      *syntax.Word
}

// text is the word as written, for reasons.
func (v value) text() string {
	if v.w == nil {
		return v.s
	}
	var buf bytes.Buffer
	_ = syntax.NewPrinter().Print(&buf, v.w)
	s := buf.String()
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// word expands w as far as the script shows, classifying the commands
// and parameters it substitutes on the way.
func (c *classifier) word(w *syntax.Word) value {
	v := value{known: true, literal: true, w: w}
	if w == nil {
		return v
	}
	var b expansion
	c.parts(&b, w.Parts, false, &v)
	v.s = b.String()
	if len(w.Parts) > 0 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			v.s = c.tilde(v.s)
			if tildeDir(v.s, '+') || tildeDir(v.s, '-') {
				v.known = false // a directory the classifier lost track of
			}
		}
	}
	return v
}

// expansion gathers a word's text. Most words are one part whose string
// is the whole value: that one is kept as it is, and only a second
// non-empty part copies into the builder.
type expansion struct {
	s     string
	b     strings.Builder
	built bool
}

func (e *expansion) WriteString(s string) {
	switch {
	case e.built:
		e.b.WriteString(s)
	case e.s == "":
		e.s = s
	case s != "":
		e.b.Grow(len(e.s) + len(s))
		e.b.WriteString(e.s)
		e.b.WriteString(s)
		e.built = true
	}
}

func (e *expansion) String() string {
	if e.built {
		return e.b.String()
	}
	return e.s
}

func (c *classifier) parts(b *expansion, parts []syntax.WordPart, quoted bool, v *value) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s := unescape(p.Value, quoted)
			if !quoted && strings.ContainsAny(p.Value, "*?[") {
				v.glob = true
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			c.parts(b, p.Parts, true, v)
		case *syntax.ParamExp:
			s, ok, opaque := c.param(p)
			v.literal = false
			v.known = v.known && ok
			v.opaque = v.opaque || opaque
			v.splits = v.splits || !quoted || p.Param != nil && (p.Param.Value == "@" || p.Param.Value == "*")
			b.WriteString(s)
		case *syntax.CmdSubst:
			v.literal = false
			v.splits = v.splits || !quoted
			out := c.substitution(p)
			v.known = v.known && out.visible
			v.opaque = v.opaque || !out.visible && !out.numeric
			v.download = v.download || out.download
			b.WriteString(strings.TrimRight(out.text, "\n"))
		case *syntax.ProcSubst:
			v.literal, v.known = false, false
			var out source
			c.scoped(func() { out = c.stmts(p.Stmts) })
			if len(parts) == 1 {
				v.proc = &out
			}
			b.WriteString("/dev/fd/63")
		case *syntax.ArithmExp:
			v.literal, v.known = false, false
			c.arith(p.X)
			b.WriteString("0")
		case *syntax.ExtGlob:
			v.glob = true
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		default:
			v.literal, v.known = false, false
		}
	}
}

// param resolves $NAME as far as the script or the environment shows it,
// and flags secret variables whatever the word is used for. Every part of
// the expansion is classified first: its subscript, slice, pattern,
// replacement and default all run their substitutions, whatever the value.
func (c *classifier) param(p *syntax.ParamExp) (s string, known, opaque bool) {
	if p.Param == nil {
		return "$?", false, false
	}
	name := p.Param.Value
	def := c.paramParts(p)
	if s, ok, positional := c.positional(name); positional {
		return s, ok, false
	}
	if c.secretVar(name) && !p.Length {
		c.flag(Explicit, "expands $"+name+", which holds a secret")
	}
	if p.Excl && p.Names == 0 {
		c.indirect(name)
		return "${!" + name + "}", false, c.isOpaque(name) // indirection: any variable
	}
	if promptOp(p) {
		c.promptValue(name)
	}
	if !simpleParam(p) {
		if s, ok := c.lookup(name); ok && p.Index == nil && !p.Excl && p.Names == 0 && !p.Width && len(p.Modifiers) == 0 {
			if r, ok := c.operate(p, s, def); ok {
				return r.s, r.known, r.opaque
			}
			return "${" + name + "…}", false, false
		}
		if p.Exp != nil && p.Index == nil && !p.Excl {
			switch p.Exp.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
				if def != nil {
					return def.s, def.known, def.opaque || c.isOpaque(name)
				}
			case syntax.AssignUnset, syntax.AssignUnsetOrNull:
				// ${x:=v}: x is v from here on, as far as the classifier can tell.
				if def != nil && !c.isOpaque(name) {
					c.setVar(name, *def)
					return def.s, def.known, def.opaque
				}
				c.setVar(name, value{opaque: true})
			}
		}
		return "${" + name + "…}", false, c.isOpaque(name) && !p.Length
	}
	if s, ok := c.lookup(name); ok {
		return s, true, false
	}
	return "$" + name, false, c.isOpaque(name)
}

// paramParts classifies the words inside ${…}; it returns the default or
// alternative word's value (${x:-WORD}), or nil.
func (c *classifier) paramParts(p *syntax.ParamExp) *value {
	if p.Index != nil {
		c.arith(p.Index)
	}
	if p.Slice != nil {
		c.arith(p.Slice.Offset)
		c.arith(p.Slice.Length)
	}
	if p.Repl != nil {
		c.word(p.Repl.Orig)
		c.word(p.Repl.With)
	}
	if p.Exp != nil && p.Exp.Word != nil {
		d := c.word(p.Exp.Word)
		return &d
	}
	return nil
}

func simpleParam(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil && len(p.Modifiers) == 0
}

// positional resolves $0…$9, $@, $* and $# from a sh -c script's
// arguments; positional reports whether name is one of them.
func (c *classifier) positional(name string) (s string, known, positional bool) {
	switch {
	case name == "@" || name == "*":
		if c.params == nil {
			return "$" + name, false, true
		}
		return strings.Join(c.params[min(1, len(c.params)):], " "), true, true
	case name == "#":
		return strconv.Itoa(max(len(c.params)-1, 0)), c.params != nil, true
	case len(name) == 1 && name[0] >= '0' && name[0] <= '9':
		i := int(name[0] - '0')
		if c.params == nil {
			return "$" + name, false, true
		}
		if i < len(c.params) {
			return c.params[i], true, true
		}
		return "", true, true
	}
	return "", false, false
}

// fields splits an expanded word the way the shell does, by IFS (as the
// script set it, else blank, tab and newline).
func (c *classifier) fields(s string) []string {
	ifs, ok := c.vars["IFS"]
	if !ok {
		ifs = " \t\n"
	}
	return strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(ifs, r) })
}

// maxBraces bounds brace expansion of one word.
const maxBraces = 64

// braces expands the comma lists and sequences of an unquoted literal
// word (/{bin,etc} is /bin and /etc, r{m..m} is rm), up to maxBraces words.
func braces(s string) []string {
	depth, open := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth--; depth == 0 && open >= 0 {
				alts := splitTop(s[open+1 : i])
				if len(alts) < 2 {
					alts = sequence(s[open+1 : i])
				}
				if len(alts) == 0 {
					open = -1
					continue
				}
				var out []string
				for _, a := range alts {
					for _, x := range braces(s[:open] + a + s[i+1:]) {
						if len(out) < maxBraces {
							out = append(out, x)
						}
					}
				}
				return out
			}
		}
	}
	return []string{s}
}

// sequence expands the body of a brace sequence as bash does: {1..3},
// {3..1}, {01..10} (padded to the wider end), {a..e..2}; nil when body is
// not one or it is longer than maxBraces.
func sequence(body string) []string {
	parts := strings.Split(body, "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil
	}
	step := 1
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil
		}
		if step = max(n, -n); step == 0 {
			step = 1
		}
	}
	a, errA := strconv.Atoi(parts[0])
	b, errB := strconv.Atoi(parts[1])
	chars := false
	switch {
	case errA == nil && errB == nil:
	case len(parts[0]) == 1 && len(parts[1]) == 1 && isLetter(parts[0][0]) && isLetter(parts[1][0]):
		a, b, chars = int(parts[0][0]), int(parts[1][0]), true
	default:
		return nil
	}
	width := 0
	if !chars {
		for _, p := range parts[:2] {
			d := strings.TrimPrefix(p, "-")
			if len(d) > 1 && d[0] == '0' {
				width = max(width, len(p))
			}
		}
	}
	if (max(a, b)-min(a, b))/step >= maxBraces {
		return nil
	}
	dir := 1
	if b < a {
		dir = -1
	}
	var out []string
	for n := a; dir*(b-n) >= 0; n += dir * step {
		switch {
		case chars && n == '\\':
			out = append(out, "") // {Z..a}: bash removes the backslash as a quote
		case chars:
			out = append(out, string(rune(n)))
		case width > 0:
			s := strconv.Itoa(max(n, -n))
			pad := width - len(s)
			if n < 0 {
				pad--
			}
			s = strings.Repeat("0", max(pad, 0)) + s
			if n < 0 {
				s = "-" + s
			}
			out = append(out, s)
		default:
			out = append(out, strconv.Itoa(n))
		}
	}
	return out
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// splitTop splits s at the commas outside nested braces.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// lookup resolves a variable from the script's own assignments, then the
// few the classifier knows, then the agent's environment.
func (c *classifier) lookup(name string) (string, bool) {
	name = c.resolveRef(name)
	if s, ok := c.vars[name]; ok {
		return s, true
	}
	switch name {
	case "HOME":
		return c.env.Home, c.env.Home != ""
	case "PWD":
		return c.cwd, c.cwd != ""
	}
	if c.env.Getenv != nil {
		if s := c.env.Getenv(name); s != "" {
			return s, true
		}
	}
	if name == "CODEWHALE_HOME" && c.env.Home != "" {
		return c.env.Home + "/.codewhale", true
	}
	return "", false
}

func (c *classifier) secretVar(name string) bool {
	if c.env.SecretVar != nil {
		return c.env.SecretVar(name)
	}
	return secrets.IsSecretEnvName(name)
}

// tilde expands a leading ~ or ~/ to the home directory, ~+ to the working
// directory and ~- to the previous one, as bash does; ~user stays, and so
// does a ~+ or ~- whose directory is unknown (word marks it unknown).
func (c *classifier) tilde(s string) string {
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		if c.env.Home != "" {
			return c.env.Home + s[1:]
		}
	case tildeDir(s, '+'):
		if c.cwd != "" {
			return c.cwd + s[2:]
		}
	case tildeDir(s, '-'):
		if c.oldCwd != "" {
			return c.oldCwd + s[2:]
		}
	}
	return s
}

// tildeDir reports s starting with the tilde prefix ~+ or ~- (sign).
func tildeDir(s string, sign byte) bool {
	return len(s) >= 2 && s[0] == '~' && s[1] == sign && (len(s) == 2 || s[2] == '/')
}

// unescape removes the backslashes the shell removes: before any
// character outside quotes; before $ ` " \ and newline inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !quoted || strings.IndexByte("$`\"\\", n) >= 0:
				i++
				b.WriteByte(n)
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes a $'…' string (\xHH, \NNN, \uHHHH, \cX, \n …), which can
// spell any command name.
func ansiC(s string) string {
	out, _ := decodeEscapes(s, escDollar)
	return out
}

// escMode is which of bash's three backslash grammars decodeEscapes follows.
type escMode int

const (
	escDollar escMode = iota // $'…' (and xargs -d): \NNN octal, \cX a control character
	escFormat                // printf's format: as $'…', but \c is kept as written
	escEcho                  // echo -e: \0NNN octal, \1 … \7 kept, \c ends the output
	escBArg                  // printf %b: as echo -e, but \NNN is octal too
)

// decodeEscapes decodes s as bash does (lib/sh/strtrans.c and printf's
// tescape): stop reports an echo-mode \c, after which bash prints nothing
// more. An escape bash does not know keeps its backslash.
func decodeEscapes(s string, mode escMode) (out string, stop bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case 'a', 'b', 'e', 'E', 'f', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11}[ch])
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[ch]
			j := i + 1
			for j < len(s) && j-i-1 < width && isHex(s[j]) {
				j++
			}
			n, err := strconv.ParseUint(s[i+1:j], 16, 32)
			if err != nil {
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			}
			if n == 0 && mode == escDollar {
				return validUTF8(b.String()), false
			}
			if ch == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			start, digits := i, 3
			switch {
			case mode == escEcho && ch != '0':
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			case (mode == escEcho || mode == escBArg) && ch == '0':
				start = i + 1 // \0 then up to three digits
			}
			j := start
			for j < len(s) && j-start < digits && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint("0"+s[start:j], 8, 16)
			if byte(n) == 0 && mode == escDollar {
				return validUTF8(b.String()), false // a shell word ends at its first NUL: $'rm\0x' is rm
			}
			b.WriteByte(byte(n))
			i = j - 1
		case 'c':
			switch {
			case mode == escEcho || mode == escBArg:
				return validUTF8(b.String()), true
			case mode == escDollar && i+1 < len(s):
				i++
				ctl := byte(0x7f) // bash's TOCTRL: \c? is DEL, else the letter's control code
				if s[i] != '?' {
					ctl = s[i] & 0x1f
				}
				if ctl == 0 {
					return validUTF8(b.String()), false
				}
				b.WriteByte(ctl)
			default:
				b.WriteString("\\c")
			}
		case '\'', '"', '?':
			if mode == escEcho || mode == escBArg {
				b.WriteByte('\\')
			}
			b.WriteByte(ch)
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
	}
	return validUTF8(b.String()), false
}

func validUTF8(s string) string {
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "?")
	}
	return s
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// maxOperand bounds the values the parameter operators are evaluated on.
const maxOperand = 4096

// operate evaluates ${name…} on name's known value s as bash does
// (checked with bash 5.2): the length, a slice with constant bounds, the
// defaults and alternatives (${x:=v} also assigns), the pattern removals
// and replacements with a pattern the classifier can read, and the case
// operators. ok is false where the result cannot be told.
func (c *classifier) operate(p *syntax.ParamExp, s string, def *value) (v value, ok bool) {
	if len(s) > maxOperand {
		return value{}, false
	}
	known := func(s string) (value, bool) { return value{s: s, known: true}, true }
	switch {
	case p.Length:
		if p.Slice != nil || p.Repl != nil || p.Exp != nil {
			return value{}, false
		}
		return known(strconv.Itoa(utf8.RuneCountInString(s)))
	case p.Slice != nil:
		if p.Repl != nil || p.Exp != nil {
			return value{}, false
		}
		r := []rune(s)
		off, ok := constArith(p.Slice.Offset)
		if !ok {
			return value{}, false
		}
		if off < 0 {
			off += len(r)
		}
		if off < 0 || off > len(r) {
			return known("")
		}
		end := len(r)
		if p.Slice.Length != nil {
			n, ok := constArith(p.Slice.Length)
			if !ok {
				return value{}, false
			}
			if n < 0 {
				if end += n; end < off {
					return value{}, false // bash: substring expression < 0
				}
			} else {
				end = min(off+n, len(r))
			}
		}
		return known(string(r[off:end]))
	case p.Repl != nil:
		if p.Exp != nil {
			return value{}, false
		}
		return c.replace(s, p.Repl)
	case p.Exp == nil:
		return value{}, false
	}
	set := s != "" || p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.AssignUnset ||
		p.Exp.Op == syntax.AlternateUnset || p.Exp.Op == syntax.ErrorUnset
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if set {
			return known(s)
		}
		if def == nil {
			return known("")
		}
		if p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull {
			c.setVar(p.Param.Value, *def)
		}
		return *def, true
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if !set {
			return known("")
		}
		if def == nil {
			return known("")
		}
		return *def, true
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return known(s)
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		re, ok := c.pattern(p.Exp.Word)
		if !ok {
			return value{}, false
		}
		return known(trimPattern(s, re, p.Exp.Op))
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		if p.Exp.Word != nil && p.Exp.Word.Lit() != "" && p.Exp.Word.Lit() != "?" {
			return value{}, false // ${x^^[a-m]}: only some letters
		}
		upper := p.Exp.Op == syntax.UpperFirst || p.Exp.Op == syntax.UpperAll
		if p.Exp.Op == syntax.UpperAll || p.Exp.Op == syntax.LowerAll {
			return known(caseAll(s, upper))
		}
		return known(caseFirst(s, upper))
	case syntax.OtherParamOps:
		switch p.Exp.Word.Lit() {
		case "U":
			return known(strings.ToUpper(s))
		case "L":
			return known(strings.ToLower(s))
		case "u":
			return known(caseFirst(s, true))
		case "E":
			return known(ansiC(s))
		}
	}
	return value{}, false
}

func caseAll(s string, upper bool) string {
	if upper {
		return strings.ToUpper(s)
	}
	return strings.ToLower(s)
}

func caseFirst(s string, upper bool) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return caseAll(string(r), upper) + s[n:]
}

// constArith is the value of an arithmetic expression of integer
// constants and unary minus (${x: -1}, ${x:0:1}); ok is false otherwise.
func constArith(x syntax.ArithmExpr) (int, bool) {
	switch x := x.(type) {
	case *syntax.Word:
		n, err := strconv.Atoi(x.Lit())
		return n, err == nil && n > -maxOperand && n < 1<<20
	case *syntax.UnaryArithm:
		n, ok := constArith(x.X)
		switch {
		case !ok || x.Post:
			return 0, false
		case x.Op == syntax.Minus:
			return -n, true
		case x.Op == syntax.Plus:
			return n, true
		}
	case *syntax.ParenArithm:
		return constArith(x.X)
	}
	return 0, false
}

// pattern turns a pattern word (${x%PAT}) into an anchored regular
// expression with bash's matching: unquoted *, ? and [...] match, * also
// across /; quoted text is literal. ok is false for what it cannot read.
func (c *classifier) pattern(w *syntax.Word) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	if w != nil {
		for _, p := range w.Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if !globRegexp(&b, p.Value) {
					return nil, false
				}
			case *syntax.SglQuoted:
				s := p.Value
				if p.Dollar {
					s = ansiC(s)
				}
				b.WriteString(regexp.QuoteMeta(s))
			case *syntax.DblQuoted:
				v := c.word(&syntax.Word{Parts: []syntax.WordPart{p}})
				if !v.known {
					return nil, false
				}
				b.WriteString(regexp.QuoteMeta(v.s))
			default:
				v := c.word(&syntax.Word{Parts: []syntax.WordPart{p}})
				if !v.known || strings.ContainsAny(v.s, `*?[\`) {
					return nil, false
				}
				b.WriteString(regexp.QuoteMeta(v.s))
			}
		}
	}
	b.WriteString(`)$`)
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// globRegexp writes the unquoted pattern text s as a regular expression;
// it reports false for what it does not translate (extended globs,
// bracket expressions beyond letters, digits, ranges and classes).
func globRegexp(b *strings.Builder, s string) bool {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			if i+1 == len(s) {
				return false
			}
			i++
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			end, class, ok := bracket(s[i:])
			if !ok {
				b.WriteString(`\[`) // no closing ]: a literal [
				continue
			}
			if class == "" {
				return false
			}
			b.WriteString(class)
			i += end
		case '(', '|':
			return false // an extended glob, maybe
		default:
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		}
	}
	return true
}

// bracket reads a bracket expression at the start of s: its last byte's
// index and the regular expression for it ("" when it cannot translate
// it); ok is false when s has no closing ].
func bracket(s string) (end int, class string, ok bool) {
	i := 1
	neg := i < len(s) && (s[i] == '!' || s[i] == '^')
	if neg {
		i++
	}
	start := i
	for j := i; j < len(s); j++ {
		if s[j] == ']' && j > start {
			body := s[start:j]
			for k := 0; k < len(body); k++ {
				ch := body[k]
				if ch == '[' && strings.HasPrefix(body[k:], "[:") {
					e := strings.Index(body[k:], ":]")
					if e < 0 {
						return j, "", true
					}
					k += e + 1
					continue
				}
				if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
					strings.IndexByte("-_./,:@+%= ~", ch) >= 0 || ch == ']' && k == 0) {
					return j, "", true
				}
			}
			body = strings.ReplaceAll(body, "]", `\]`)
			if neg {
				return j, "[^" + body + "]", true
			}
			return j, "[" + body + "]", true
		}
		if s[j] == '[' && j+1 < len(s) && s[j+1] == ':' {
			if e := strings.Index(s[j:], ":]"); e > 0 {
				j += e + 1
			}
		}
	}
	return 0, "", false
}

// trimPattern removes the shortest or longest prefix or suffix of s that
// re matches (${x#p}, ${x##p}, ${x%p}, ${x%%p}).
func trimPattern(s string, re *regexp.Regexp, op syntax.ParExpOperator) string {
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(s); i++ {
			if re.MatchString(s[:i]) {
				return s[i:]
			}
		}
	case syntax.RemLargePrefix:
		for i := len(s); i >= 0; i-- {
			if re.MatchString(s[:i]) {
				return s[i:]
			}
		}
	case syntax.RemSmallSuffix:
		for i := len(s); i >= 0; i-- {
			if re.MatchString(s[i:]) {
				return s[:i]
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(s); i++ {
			if re.MatchString(s[i:]) {
				return s[:i]
			}
		}
	}
	return s
}

// emptyWord reports a word of no text at all (an empty pattern).
func emptyWord(w *syntax.Word) bool {
	if w == nil {
		return true
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); !ok || l.Value != "" {
			return false
		}
	}
	return true
}

// replace evaluates ${x/pat/rep} and its kin on s: the first (//: every)
// longest match replaced, /# anchored at the start, /% at the end. A
// replacement with & (bash 5.2's patsub_replacement) is not evaluated.
func (c *classifier) replace(s string, r *syntax.Replace) (value, bool) {
	orig := r.Orig
	anchor := byte(0)
	if orig != nil && len(orig.Parts) > 0 && !r.All {
		if l, ok := orig.Parts[0].(*syntax.Lit); ok && (strings.HasPrefix(l.Value, "#") || strings.HasPrefix(l.Value, "%")) {
			anchor = l.Value[0]
			parts := append([]syntax.WordPart{&syntax.Lit{Value: l.Value[1:]}}, orig.Parts[1:]...)
			orig = &syntax.Word{Parts: parts}
		}
	}
	re, ok := c.pattern(orig)
	if !ok {
		return value{}, false
	}
	with := value{known: true}
	if r.With != nil {
		with = c.word(r.With)
		if !with.known || strings.Contains(with.s, "&") || strings.Contains(with.s, `\`) {
			return value{}, false
		}
	}
	if emptyWord(orig) {
		if anchor != 0 {
			return value{}, false
		}
		return value{s: s, known: true}, true // an empty pattern matches nothing
	}
	switch anchor {
	case '#':
		for j := len(s); j > 0; j-- {
			if re.MatchString(s[:j]) {
				return value{s: with.s + s[j:], known: true}, true
			}
		}
		return value{s: s, known: true}, true
	case '%':
		for i := 0; i < len(s); i++ {
			if re.MatchString(s[i:]) {
				return value{s: s[:i] + with.s, known: true}, true
			}
		}
		return value{s: s, known: true}, true
	}
	var b strings.Builder
	i := 0
	for i < len(s) {
		j := len(s)
		for ; j > i && !re.MatchString(s[i:j]); j-- {
		}
		if j == i {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(with.s)
		if i = j; !r.All {
			break
		}
	}
	b.WriteString(s[i:])
	return value{s: b.String(), known: true}, true
}
