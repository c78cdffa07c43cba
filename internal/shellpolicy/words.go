package shellpolicy

import (
	"bytes"
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
		if def != nil && (p.Exp.Op == syntax.DefaultUnset || p.Exp.Op == syntax.DefaultUnsetOrNull) {
			if s, ok := c.lookup(name); ok {
				return s, true, false
			}
			return def.s, def.known, def.opaque || c.isOpaque(name)
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

// braces expands the comma lists of an unquoted literal word
// (/{bin,etc} is /bin and /etc); sequences ({1..9}) are left as written.
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
