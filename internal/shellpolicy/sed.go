package shellpolicy

import (
	"strings"
)

// GNU sed runs shell commands from its script: `e COMMAND` runs COMMAND,
// a bare `e` and the e flag of s/// run the pattern space (a line of the
// input, after the substitution). No library parses sed scripts, so this
// file reads GNU sed's grammar (sed(1), "sed scripts" in its manual) far
// enough to find those commands; a script it cannot read is judged as if
// it ran code the classifier cannot see.

// sedExec is one command a sed script runs: its text, and whether the
// input decides it (bare e, s///e).
type sedExec struct {
	cmd   string
	input bool
}

// sedScripts gathers a sed command line's script (every -e and -f, joined
// by newlines as sed joins them, else the first operand); ok is false when
// part of it is not visible.
func (c *classifier) sedScripts(args []value, stdin *source) (script string, ok bool) {
	var parts []string
	ok = true
	add := func(v value, file bool) {
		switch {
		case !file:
			// An expansion stands as written: s/$OLD/$NEW/ is still an s.
			parts = append(parts, v.s)
		case stdinPath(v.s) && stdin != nil && stdin.visible:
			parts = append(parts, stdin.text)
		case stdinPath(v.s):
			ok = false
		default:
			if w, seen := c.files[c.absPath(v.s)]; seen && w.visible {
				parts = append(parts, w.text)
			} else if seen {
				ok = false
			} else if b, read := readSmall(c.absPath(v.s)); read {
				parts = append(parts, string(b))
			}
			// A script file that cannot be read is the project's own, as
			// sh FILE is (scanFile): sed refuses a missing one.
		}
	}
	var operands []value
	given := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a.s, "--"):
			name, val, attached := strings.Cut(a.s, "=")
			isExpr, isFile := takesValue(name, "--expression"), takesValue(name, "--file")
			if !isExpr && !isFile {
				if takesValue(name, "--line-length") && !attached {
					i++
				}
				continue
			}
			given = true
			if !attached && i+1 < len(args) {
				i++
				val = args[i].s
				a = args[i]
			}
			a.s = val
			add(a, isFile)
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			for j := 1; j < len(a.s); j++ {
				f := a.s[j]
				if f == 'i' {
					break // -i[SUFFIX]: the rest of the bundle is the suffix
				}
				if f != 'e' && f != 'f' && f != 'l' {
					continue
				}
				v := a
				if j+1 < len(a.s) {
					v.s = a.s[j+1:]
				} else if i+1 < len(args) {
					i++
					v = args[i]
				}
				if f != 'l' {
					given = true
					add(v, f == 'f')
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if !given && len(operands) > 0 {
		add(operands[0], false)
	}
	return strings.Join(parts, "\n"), ok
}

// sed classifies the commands a sed script runs.
func (c *classifier) sed(args []value, stdin *source) {
	script, ok := c.sedScripts(args, stdin)
	if !ok {
		c.flag(Explicit, "sed reads a script the classifier cannot see from stdin, and GNU sed's e command runs shell commands")
		return
	}
	p, ok := parseSed(script)
	if !ok {
		c.flag(Explicit, "sed's script does not parse as GNU sed, whose e command runs shell commands")
		return
	}
	for _, f := range p.writes {
		if f != "" {
			c.writtenFile(lit(f)) // w FILE: a write, checked as a redirect to FILE is
		}
	}
	for _, e := range p.execs {
		c.atLeast(Ordinary)
		if e.cmd != "" {
			c.nested(e.cmd, "sed e")
		}
		if e.input {
			c.flag(Explicit, "sed runs lines of its input as shell commands (the e command or the e flag of s///)")
		}
	}
}

// sedParser walks a GNU sed script.
type sedParser struct {
	s      string
	i      int
	execs  []sedExec
	files  int      // r R w W commands and s///w flags (what sed --sandbox refuses besides e)
	writes []string // the files w, W and s///w write
}

// sedExecs lists the commands script runs; ok is false when it does not
// parse (GNU sed would refuse it too, or this reading is wrong: either way
// nothing about it is proven).
func sedExecs(script string) (execs []sedExec, ok bool) {
	p, ok := parseSed(script)
	return p.execs, ok
}

func parseSed(script string) (*sedParser, bool) {
	p := &sedParser{s: script}
	for {
		p.skip(" \t\n;")
		if p.i >= len(p.s) {
			return p, true
		}
		if !p.command() {
			return p, false
		}
	}
}

func (p *sedParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// command reads [addr[,addr]][!]cmd and what cmd takes.
func (p *sedParser) command() bool {
	if p.peek() == '#' {
		p.toEOL()
		return true
	}
	first, ok := p.address()
	if !ok {
		return false
	}
	p.skip(" \t")
	if p.peek() == ',' {
		p.i++
		p.skip(" \t")
		if second, ok := p.address(); !first || !second || !ok {
			return false
		}
		p.skip(" \t")
	}
	for p.peek() == '!' {
		p.i++
		p.skip(" \t")
	}
	if p.i >= len(p.s) {
		return false
	}
	cmd := p.s[p.i]
	p.i++
	switch cmd {
	case '{', '}':
		return true
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		p.skip(" \t")
		p.digits()
	case ':', 'b', 't', 'T', 'v':
		p.skip(" \t")
		p.label()
	case 'a', 'i', 'c':
		p.text()
		return true
	case 'r', 'R', 'w', 'W':
		p.files++
		if f := strings.TrimSpace(p.toEOL()); cmd == 'w' || cmd == 'W' {
			p.writes = append(p.writes, f)
		}
		return true
	case 'e':
		p.skip(" \t")
		cmd := p.toEOL()
		p.execs = append(p.execs, sedExec{cmd: cmd, input: cmd == ""})
		return true
	case 's':
		return p.substitute()
	case 'y':
		return p.transliterate()
	default:
		return false
	}
	return p.end()
}

// end accepts what may follow a command: spaces, then ; newline } # or
// the end of the script.
func (p *sedParser) end() bool {
	p.skip(" \t")
	switch p.peek() {
	case 0, ';', '\n', '}', '#':
		return true
	}
	return false
}

func (p *sedParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// address reads one address, if there is one (found): N, first~step, $,
// /re/, \cREc (with I and M flags), +N and ~N (as a second address).
func (p *sedParser) address() (found, ok bool) {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
	case c == '+' || c == '~':
		p.i++
		return true, p.digits()
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
		}
		if p.i >= len(p.s) || p.s[p.i] == '\n' {
			return false, false
		}
		delim := p.s[p.i]
		p.i++
		if _, ok := p.delimited(delim); !ok {
			return false, false
		}
		for p.peek() == 'I' || p.peek() == 'M' {
			p.i++
		}
	default:
		return false, true
	}
	return true, true
}

// delimited reads up to an unescaped delim and returns the text.
func (p *sedParser) delimited(delim byte) (string, bool) {
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch {
		case ch == '\\' && p.i+1 < len(p.s):
			if p.s[p.i+1] == delim {
				b.WriteByte(delim)
			} else {
				b.WriteString(p.s[p.i : p.i+2])
			}
			p.i += 2
			continue
		case ch == delim:
			p.i++
			return b.String(), true
		case ch == '\n' && delim != '\n':
			return "", false
		}
		b.WriteByte(ch)
		p.i++
	}
	return "", false
}

func (p *sedParser) label() {
	for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != ';' {
		p.i++
	}
}

func (p *sedParser) toEOL() string {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
	return p.s[start:p.i]
}

// text reads a/i/c's text: to the end of the line, each line ending in a
// backslash continuing it.
func (p *sedParser) text() {
	for p.i < len(p.s) {
		if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
			p.i += 2
			continue
		}
		if p.s[p.i] == '\n' {
			return
		}
		p.i++
	}
}

// substitute reads s/re/replacement/flags; the e flag runs the pattern
// space after the substitution, the replacement's text included.
func (p *sedParser) substitute() bool {
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return false
	}
	delim := p.s[p.i]
	p.i++
	if _, ok := p.delimited(delim); !ok {
		return false
	}
	repl, ok := p.replacement(delim)
	if !ok {
		return false
	}
	exec := false
	for p.i < len(p.s) {
		switch ch := p.s[p.i]; {
		case ch == 'e':
			exec = true
		case ch == 'w':
			p.files++
			p.i++
			p.writes = append(p.writes, strings.TrimSpace(p.toEOL()))
			p.addS(exec, repl)
			return true
		case strings.IndexByte("gpiImM", ch) >= 0 || ch >= '0' && ch <= '9':
		default:
			p.addS(exec, repl)
			return p.end()
		}
		p.i++
	}
	p.addS(exec, repl)
	return true
}

func (p *sedParser) addS(exec bool, repl string) {
	if exec {
		p.execs = append(p.execs, sedExec{cmd: repl, input: true})
	}
}

// replacement reads the replacement of s///, which may span lines with a
// backslash before each newline; & and \N (the matched text) read as
// nothing, the rest as it is written.
func (p *sedParser) replacement(delim byte) (string, bool) {
	var b strings.Builder
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch {
		case ch == '\\' && p.i+1 < len(p.s):
			n := p.s[p.i+1]
			switch {
			case n == delim || n == '\n' || n == '\\' || n == '&':
				b.WriteByte(n)
			case n == 'n':
				b.WriteByte('\n')
			case n >= '0' && n <= '9', strings.IndexByte("LlUuE", n) >= 0:
			default:
				b.WriteByte(n)
			}
			p.i += 2
			continue
		case ch == delim:
			p.i++
			return b.String(), true
		case ch == '\n':
			return "", false
		case ch == '&':
		default:
			b.WriteByte(ch)
		}
		p.i++
	}
	return "", false
}

// transliterate reads y/src/dst/.
func (p *sedParser) transliterate() bool {
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return false
	}
	delim := p.s[p.i]
	p.i++
	if _, ok := p.delimited(delim); !ok {
		return false
	}
	if _, ok := p.delimited(delim); !ok {
		return false
	}
	return p.end()
}
