package shellpolicy

import (
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
// runs its body once per line with VAR set to it.
func (c *classifier) whileLoop(w *syntax.WhileClause, stdin *source) {
	names, ok := readLoop(w)
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
		c.readInto(names, line)
		c.stmts(w.Do)
	})
}

// readLoop reports `while read [-r] NAME…` and its names.
func readLoop(w *syntax.WhileClause) ([]string, bool) {
	if w.Until || len(w.Cond) != 1 || len(w.Cond[0].Redirs) > 0 {
		return nil, false
	}
	call, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "read" {
		return nil, false
	}
	for _, a := range call.Assigns {
		if a.Name == nil || a.Name.Value != "IFS" || a.Value != nil && a.Value.Lit() != "" {
			return nil, false // IFS= read -r line: the whole line
		}
	}
	var names []string
	for _, a := range call.Args[1:] {
		s := a.Lit()
		switch {
		case s == "-r":
		case isName(s):
			names = append(names, s)
		default:
			return nil, false
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	return names, true
}

// readInto sets read's variables from one line: split by IFS, the last
// name taking the rest.
func (c *classifier) readInto(names []string, line value) {
	if !line.known {
		for _, n := range names {
			c.setVar(n, value{opaque: true})
		}
		return
	}
	fields := c.fields(line.s)
	for i, n := range names {
		switch {
		case i >= len(fields):
			c.setVar(n, lit(""))
		case i == len(names)-1:
			c.setVar(n, lit(strings.Join(fields[i:], " ")))
		default:
			c.setVar(n, lit(fields[i]))
		}
	}
}

// readBuiltin classifies read and mapfile/readarray: the variables they
// set get the first line of visible input, else a value nobody can see,
// and a subscript in a name is evaluated.
func (c *classifier) readBuiltin(name string, args []value, stdin *source) {
	valued := "adinNptu"
	if name != "read" {
		valued = "CcdnOsu"
	}
	var names []value
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			names = append(names, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			if f := a.s[len(a.s)-1]; strings.IndexByte(valued, f) >= 0 && i+1 < len(args) {
				if f == 'a' {
					names = append(names, args[i+1])
				}
				i++
			}
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 && name == "read" {
		names = []value{lit("REPLY")}
	}
	line := value{opaque: true}
	if stdin != nil && stdin.visible && name == "read" {
		first, _, _ := strings.Cut(stdin.text, "\n")
		line = lit(first)
	}
	var plain []string
	for _, n := range names {
		c.varRef(n, name)
		if n.known && isName(n.s) {
			plain = append(plain, n.s)
		}
	}
	c.readInto(plain, line)
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
