package shellpolicy

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Functions and loops run their bodies with values the script shows: a
// call is classified as its body with the call's arguments as $1…, a for
// loop's body once for each item, a while-read loop's once for each line
// it reads from visible input. What runs is then judged by the values it
// gets (f(){ rm -rf "$1"; }; f / is rm -rf /).

// maxLoop bounds the items of one loop the classifier follows one by one.
const maxLoop = 64

// defineFunc records a function so a later call runs its body.
func (c *classifier) defineFunc(fd *syntax.FuncDecl) {
	if fd.Name != nil {
		c.funcs = set(c.funcs, fd.Name.Value, fd.Body)
	}
	for _, n := range fd.Names {
		c.funcs = set(c.funcs, n.Value, fd.Body)
	}
}

// callFunc classifies a call of a function the script defined: its body
// with the arguments as positional parameters (unknown when one is). A
// function running itself again is not followed a second time.
func (c *classifier) callFunc(args []value, stdin *source) {
	name := args[0].s
	body, ok := c.funcs[name]
	if !ok || c.calling[name] {
		return
	}
	if c.depth >= maxDepth {
		c.flag(Explicit, "calls functions deeper than the classifier follows ("+name+")")
		return
	}
	params := []string{name}
	for _, a := range args[1:] {
		if !a.known {
			params = nil
			break
		}
		params = append(params, a.s)
	}
	saved := c.params
	c.calling, c.params = set(c.calling, name, true), params
	c.depth++
	c.stmt(body, stdin)
	c.depth--
	c.calling[name], c.params = false, saved
}

// forLoop classifies for NAME in ITEMS and the arithmetic for (( … )).
func (c *classifier) forLoop(f *syntax.ForClause) {
	switch l := f.Loop.(type) {
	case *syntax.CStyleLoop:
		c.arith(l.Init)
		c.arith(l.Cond)
		c.arith(l.Post)
		c.stmts(f.Do)
	case *syntax.WordIter:
		var items []value
		if l.InPos.IsValid() {
			for _, w := range l.Items {
				items = c.expandWord(items, w)
			}
		} else if c.params != nil {
			for _, p := range c.params[1:] {
				items = append(items, lit(p))
			}
		} else {
			items = []value{{s: "$@"}}
		}
		c.eachItem(items, func(v value) {
			c.setVar(l.Name.Value, v)
			c.stmts(f.Do)
		})
	}
}

// eachItem runs body once per distinct item; past maxLoop items the loop
// needs explicit approval.
func (c *classifier) eachItem(items []value, body func(value)) {
	seen := map[string]bool{}
	for _, v := range items {
		key := v.s
		if !v.known {
			key = "\x00unknown"
		}
		if seen[key] {
			continue
		}
		if len(seen) == maxLoop {
			c.flag(Explicit, "loops over more items than the classifier follows one by one")
			return
		}
		seen[key] = true
		body(v)
	}
	if len(items) == 0 {
		body(value{}) // a loop over nothing still shows what its body would run
	}
}

// whileLoop classifies while/until. `while read VAR …` over visible input
// runs its body once per line with VAR set to what read makes of it.
func (c *classifier) whileLoop(w *syntax.WhileClause, stdin *source) {
	names, raw, noIFS, ok := readLoop(w)
	if !ok || stdin == nil || !stdin.visible {
		for _, s := range w.Cond {
			c.stmt(s, stdin)
		}
		c.stmts(w.Do)
		return
	}
	var lines []value
	for _, l := range strings.SplitAfter(stdin.text, "\n") {
		if l != "" {
			lines = append(lines, lit(strings.TrimSuffix(l, "\n")))
		}
	}
	c.eachItem(lines, func(line value) {
		ifs, set := c.vars["IFS"]
		switch {
		case noIFS:
			ifs = ""
		case !set:
			ifs = " \t\n"
		}
		text, esc := readLine(line.s, readOpts{raw: raw, delim: '\n', nchars: -1})
		c.readFields(names, lit(text), ifs, esc)
		c.stmts(w.Do)
	})
}

// readLoop reports `while [IFS=] read [-r] NAME…`, its names, -r, and an
// empty IFS assigned before read.
func readLoop(w *syntax.WhileClause) (names []string, raw, noIFS, ok bool) {
	if w.Until || len(w.Cond) != 1 || len(w.Cond[0].Redirs) > 0 {
		return nil, false, false, false
	}
	call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "read" {
		return nil, false, false, false
	}
	for _, a := range call.Assigns {
		if a.Name == nil || a.Name.Value != "IFS" || a.Append {
			return nil, false, false, false
		}
		if s, lit := literal(a.Value); a.Value != nil && (!lit || s != "") {
			return nil, false, false, false
		}
		noIFS = true // IFS= read -r line: the whole line
	}
	for _, a := range call.Args[1:] {
		s := a.Lit()
		switch {
		case s == "-r":
			raw = true
		case isName(s):
			names = append(names, s)
		default:
			return nil, false, false, false
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	return names, raw, noIFS, true
}

// readFields sets names from line as read does with IFS ifs: each name
// but the last takes one field, the last the rest of the line. escaped
// marks the bytes of line a backslash protected from splitting (nil: none).
func (c *classifier) readFields(names []string, line value, ifs string, escaped []bool) {
	if !line.known {
		for _, n := range names {
			c.setVar(n, value{opaque: line.opaque})
		}
		return
	}
	fields := readSplit(line.s, ifs, escaped, len(names))
	for i, n := range names {
		if i < len(fields) {
			c.setVar(n, lit(fields[i]))
		} else {
			c.setVar(n, lit(""))
		}
	}
}

// readSplit splits s into at most n fields as bash's read builtin does
// (builtins/read.def, checked with bash 5.2): IFS whitespace around a
// field is dropped, a non-blank IFS character ends one field, and the
// last field is the rest of the line without its trailing IFS whitespace
// (without a lone trailing delimiter either: IFS=, read a b <<< 'x,y,'
// gives b=y). An empty IFS does not split at all.
func readSplit(s, ifs string, escaped []bool, n int) []string {
	if n <= 0 {
		return nil
	}
	if ifs == "" {
		return []string{s}
	}
	if len(escaped) != len(s) {
		escaped = make([]bool, len(s))
	}
	isIFS := func(i int) bool { return !escaped[i] && strings.IndexByte(ifs, s[i]) >= 0 }
	isWS := func(i int) bool { return isIFS(i) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') }
	i := 0
	for i < len(s) && isWS(i) {
		i++
	}
	// word takes one field from i and the delimiter after it: IFS
	// whitespace, at most one other IFS character, IFS whitespace.
	word := func(i int) (string, int) {
		j := i
		for j < len(s) && !isIFS(j) {
			j++
		}
		w := s[i:j]
		for j < len(s) && isWS(j) {
			j++
		}
		if j < len(s) && isIFS(j) && !isWS(j) {
			j++
			for j < len(s) && isWS(j) {
				j++
			}
		}
		return w, j
	}
	var out []string
	for len(out) < n-1 && i < len(s) {
		var w string
		w, i = word(i)
		out = append(out, w)
	}
	if i < len(s) {
		if w, j := word(i); j == len(s) {
			out = append(out, w)
		} else {
			e := len(s)
			for e > i && isWS(e-1) {
				e--
			}
			out = append(out, s[i:e])
		}
	}
	return out
}

// readOpts is what read's options make of its input.
type readOpts struct {
	raw    bool   // -r: a backslash is an ordinary character
	delim  byte   // -d: the character that ends the line (0: NUL)
	nchars int    // -n N / -N N: at most N characters; -1 when not given
	exact  bool   // -N: exactly N characters, the delimiter ignored, no splitting
	known  bool   // every option's value is visible
	fd     bool   // -u FD: reads another file descriptor, not stdin
	array  string // -a NAME
}

// readLine is the text read consumes from in under o, and which of its
// bytes a backslash escaped.
func readLine(in string, o readOpts) (string, []bool) {
	var b []byte
	var esc []bool
	for i := 0; i < len(in); i++ {
		if o.nchars >= 0 && len(b) >= o.nchars {
			break
		}
		ch := in[i]
		if !o.raw && ch == '\\' && i+1 < len(in) {
			i++
			if in[i] == '\n' {
				continue // a line continuation
			}
			b, esc = append(b, in[i]), append(esc, true)
			continue
		}
		if !o.exact && ch == o.delim {
			break
		}
		b, esc = append(b, ch), append(esc, false)
	}
	return string(b), esc
}

// parseRead reads read's options (getopt "ad:ei:n:N:p:rst:u:") and
// returns them with the names it sets.
func parseRead(args []value) (readOpts, []value) {
	o := readOpts{delim: '\n', nchars: -1, known: true}
	var names []value
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" && len(names) == 0 {
			return o, append(names, args[i+1:]...)
		}
		if !strings.HasPrefix(a.s, "-") || len(a.s) < 2 || len(names) > 0 {
			names = append(names, a)
			continue
		}
		if !a.known {
			o.known = false
		}
	letters:
		for j := 1; j < len(a.s); j++ {
			f := a.s[j]
			if strings.IndexByte("adinNptu", f) < 0 {
				o.raw = o.raw || f == 'r'
				continue
			}
			arg := value{s: a.s[j+1:], known: a.known}
			if arg.s == "" {
				if i+1 >= len(args) {
					break letters
				}
				i++
				arg = args[i]
			}
			if !arg.known {
				o.known = false
			}
			switch f {
			case 'a':
				o.array = arg.s
				names = append(names, arg)
			case 'd':
				o.delim = 0
				if arg.s != "" {
					o.delim = arg.s[0]
				}
			case 'n', 'N':
				n, err := strconv.Atoi(arg.s)
				if err != nil || n < 0 {
					o.known = false
				}
				o.nchars, o.exact = n, f == 'N'
			case 'u':
				o.fd = true
			}
			break letters
		}
	}
	return o, names
}

// readBuiltin classifies read and mapfile/readarray: the variables they
// set get what read takes of visible input (the line up to -d's
// delimiter, -n's or -N's characters, backslashes removed unless -r,
// split by IFS, an IFS assigned before read included), else a value
// nobody can see, and a subscript in a name is evaluated.
func (c *classifier) readBuiltin(name string, args []value, stdin *source) {
	var names []value
	o := readOpts{delim: '\n', nchars: -1, known: true}
	if name == "read" {
		o, names = parseRead(args)
	} else {
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a.s == "--":
				names = append(names, args[i+1:]...)
				i = len(args)
			case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
				if f := a.s[len(a.s)-1]; strings.IndexByte("CcdnOsu", f) >= 0 && i+1 < len(args) {
					i++
				}
			default:
				names = append(names, a)
			}
		}
	}
	if len(names) == 0 && name == "read" {
		names = []value{lit("REPLY")}
	}
	var plain []string
	for _, n := range names {
		c.varRef(n, name)
		if n.known && isName(n.s) {
			plain = append(plain, n.s)
		}
	}
	ifs, ok := c.vars["IFS"]
	if !ok {
		ifs = " \t\n"
	}
	ifsKnown := true
	if v, ok := c.prefix["IFS"]; ok {
		ifs, ifsKnown = v.s, v.known
	}
	switch {
	case name != "read" || stdin == nil || !stdin.visible || o.fd:
		for _, n := range plain {
			c.setVar(n, value{opaque: true})
		}
		return
	case !o.known || !ifsKnown && !o.exact:
		for _, n := range plain {
			c.setVar(n, value{}) // a part of visible input, but which part is not seen
		}
		return
	}
	text, esc := readLine(stdin.text, o)
	if o.exact {
		ifs = "" // -N: the characters read, not split
	}
	if o.array != "" {
		// -a NAME: every field an element; $NAME is the first.
		for _, n := range plain {
			if n != o.array {
				c.readFields([]string{n}, lit(text), ifs, esc)
			}
		}
		if isName(o.array) {
			f := readSplit(text, ifs, esc, 2)
			c.setVar(o.array, lit(append(f, "")[0]))
		}
		return
	}
	c.readFields(plain, lit(text), ifs, esc)
}

// test classifies [[ … ]]: the operands of -eq and its kin are
// arithmetic, and -v and -R resolve a variable name's subscript.
func (c *classifier) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if arithTest(x.Op) {
			c.testOperandArith(x.X)
			c.testOperandArith(x.Y)
			return
		}
		c.test(x.X)
		c.test(x.Y)
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
			c.varRef(c.word(w), "[[ "+x.Op.String()+" ]]")
			return
		}
		c.test(x.X)
	case *syntax.ParenTest:
		c.test(x.X)
	default:
		c.words(x)
	}
}

func (c *classifier) testOperandArith(x syntax.TestExpr) {
	if w, ok := x.(*syntax.Word); ok {
		c.arithWord(w, map[string]bool{})
		return
	}
	c.test(x)
}

// testBuiltin classifies test and [: -v and -R name a variable whose
// subscript is evaluated (the builtin does no other arithmetic).
func (c *classifier) testBuiltin(name string, args []value) {
	for i, a := range args {
		if (a.s == "-v" || a.s == "-R") && i+1 < len(args) {
			c.varRef(args[i+1], name+" "+a.s)
		}
	}
}
