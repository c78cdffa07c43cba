package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stmts classifies a list and returns what it prints, as far as that is
// visible (one statement's output; a list's when every part is visible).
func (c *classifier) stmts(ss []*syntax.Stmt) source {
	out := source{visible: true, numeric: len(ss) > 0}
	for _, s := range ss {
		o := c.stmt(s, nil)
		out.text += o.text
		out.visible = out.visible && o.visible
		out.numeric = out.numeric && o.numeric
		out.download = out.download || o.download
		out.operands = append(out.operands, o.operands...)
	}
	return out
}

// scoped runs f with the variables and directory restored afterwards, as
// a subshell or command substitution leaves them.
func (c *classifier) scoped(f func()) {
	cwd, old, stack, vars, opaque, refs := c.cwd, c.oldCwd, c.dirStack, clone(c.vars), clone(c.opaque), clone(c.refs)
	f()
	c.cwd, c.oldCwd, c.dirStack, c.vars, c.opaque, c.refs = cwd, old, stack, vars, opaque, refs
}

// set is m with m[k] = v, made when m is nil.
func set[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

func clone[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// stmt classifies one statement and returns what it prints; stdin is what
// a pipeline feeds it (nil when nothing does).
func (c *classifier) stmt(s *syntax.Stmt, stdin *source) source {
	if s == nil || !c.spend() {
		return source{}
	}
	if s.Background || s.Coprocess || s.Disown {
		c.atLeast(Ordinary) // something is left running
	}
	red := c.redirects(s.Redirs)
	if red.in != nil {
		stdin = red.in
	}
	out := c.command1(s.Cmd, stdin)
	if red.out == "" {
		return out
	}
	// Remember what the script writes, so running it next is judged by
	// its content.
	c.wrote(red.out, out, red.appends)
	return source{visible: true}
}

// command1 classifies the command of a statement.
func (c *classifier) command1(cmd syntax.Command, stdin *source) source {
	switch cmd := cmd.(type) {
	case nil:
		return source{visible: true}
	case *syntax.CallExpr:
		return c.call(cmd, stdin)
	case *syntax.BinaryCmd:
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			var stages [8]*syntax.Stmt // most pipelines are short: no allocation
			return c.pipeline(flatten(cmd, stages[:0]), stdin)
		}
		c.stmt(cmd.X, stdin)
		c.stmt(cmd.Y, nil)
	case *syntax.Subshell:
		var out source
		c.scoped(func() { out = c.stmts(cmd.Stmts) })
		return out
	case *syntax.Block:
		return c.stmts(cmd.Stmts)
	case *syntax.TimeClause:
		if call, ok := cmd.Stmt.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && len(call.Assigns) == 0 &&
			strings.HasPrefix(call.Args[0].Lit(), "-") && call.Args[0].Lit() != "-p" {
			// time -o FILE CMD: sh (dash) has no time keyword and runs GNU time.
			words := append([]*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: "time"}}}}, call.Args...)
			return c.call(&syntax.CallExpr{Args: words}, stdin)
		}
		return c.stmt(cmd.Stmt, stdin)
	case *syntax.TestClause:
		c.test(cmd.X)
	case *syntax.ArithmCmd:
		c.arith(cmd.X)
	case *syntax.LetClause:
		c.atLeast(Ordinary)
		for _, x := range cmd.Exprs {
			c.arith(x)
		}
	case *syntax.DeclClause:
		c.decl(cmd)
	case *syntax.FuncDecl:
		c.atLeast(Ordinary)
		if forkBomb(cmd) {
			c.flag(Blocked, "defines a fork bomb: a function that recursively starts copies of itself in the background")
		}
		c.scoped(func() { c.stmt(cmd.Body, nil) })
		c.defineFunc(cmd)
	default:
		c.compound(cmd, stdin)
	}
	return source{}
}

// compound classifies if/while/for/case and the rest: never read-only (a
// loop can do anything its body does, repeatedly), and every statement and
// word inside is classified.
func (c *classifier) compound(cmd syntax.Command, stdin *source) {
	c.atLeast(Ordinary)
	switch cmd := cmd.(type) {
	case *syntax.IfClause:
		for ; cmd != nil; cmd = cmd.Else {
			c.stmts(cmd.Cond)
			c.stmts(cmd.Then)
		}
	case *syntax.WhileClause:
		c.whileLoop(cmd, stdin)
	case *syntax.ForClause:
		c.forLoop(cmd)
	case *syntax.CaseClause:
		c.word(cmd.Word)
		for _, it := range cmd.Items {
			c.stmts(it.Stmts)
		}
	case *syntax.CoprocClause:
		c.stmt(cmd.Stmt, nil)
	default:
		// Any other node (zsh and mksh forms): classify what it contains.
		c.words(cmd)
		syntax.Walk(cmd, func(n syntax.Node) bool {
			if s, ok := n.(*syntax.Stmt); ok {
				c.stmt(s, nil)
				return false
			}
			return true
		})
	}
}

// words classifies every word inside node (loop items, test and
// arithmetic expressions), which only matters for the substitutions and
// expansions they hold.
func (c *classifier) words(node syntax.Node) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			c.word(n)
			return false
		case *syntax.CmdSubst:
			c.scoped(func() { c.stmts(n.Stmts) })
			return false
		case *syntax.ParamExp:
			c.param(n)
			return false
		case *syntax.Stmt:
			return false
		}
		return true
	})
}

// flatten lists the stages of a pipeline left to right.
func flatten(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	if x, ok := b.X.Cmd.(*syntax.BinaryCmd); ok && (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && len(b.X.Redirs) == 0 {
		out = flatten(x, out)
	} else {
		out = append(out, b.X)
	}
	if y, ok := b.Y.Cmd.(*syntax.BinaryCmd); ok && (y.Op == syntax.Pipe || y.Op == syntax.PipeAll) && len(b.Y.Redirs) == 0 {
		return flatten(y, out)
	}
	return append(out, b.Y)
}

// pipeline classifies each stage with what the stages before it print
// (as far as that is visible), so `echo … | base64 -d | sh` and
// `curl … | sh` are judged by the script that reaches the shell.
func (c *classifier) pipeline(stages []*syntax.Stmt, stdin *source) source {
	in := stdin
	var out source
	for _, st := range stages {
		out = c.stmt(st, in)
		if in != nil && in.download {
			out.download = true // whatever a download passes through stays a download
		}
		in = &out
	}
	return out
}

// call classifies one simple command and returns what it prints.
func (c *classifier) call(ce *syntax.CallExpr, stdin *source) source {
	var prefix map[string]value // GIT_DIR=… git …: the repository that one command uses
	for _, a := range ce.Assigns {
		v := c.assignValue(a)
		if a.Name == nil {
			continue
		}
		name := c.resolveRef(a.Name.Value)
		c.assigned(name, v)
		switch {
		case len(ce.Args) == 0 && a.Index != nil:
			c.setVar(name, value{opaque: v.opaque})
		case len(ce.Args) == 0:
			c.setVar(name, v)
		case prefixVar(name):
			if prefix == nil {
				prefix = map[string]value{}
			}
			prefix[name] = v
		}
	}
	if len(ce.Args) == 0 {
		return source{visible: true}
	}
	if prefix != nil {
		saved := c.prefix
		c.prefix = prefix
		defer func() { c.prefix = saved }()
	}
	args := make([]value, 0, len(ce.Args))
	for _, w := range ce.Args {
		args = c.expandWord(args, w)
	}
	if len(args) == 0 {
		return source{visible: true}
	}
	c.command(args, stdin)
	return c.emits(args, stdin)
}

// expandWord appends to out one argument word as the fields the shell
// makes of it: brace lists expanded, unquoted expansions split.
func (c *classifier) expandWord(out []value, w *syntax.Word) []value {
	v := c.word(w)
	if len(w.Parts) == 1 && v.literal && strings.Contains(v.s, "{") {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok {
			for _, s := range braces(lit.Value) {
				x := v
				x.s = c.tilde(unescape(s, false))
				out = append(out, x)
			}
			return out
		}
	}
	if !v.splits || !v.known {
		return append(out, v)
	}
	for _, f := range c.fields(v.s) {
		x := v
		x.s = f
		out = append(out, x)
	}
	return out
}

func (c *classifier) assignValue(a *syntax.Assign) value {
	if a.Index != nil {
		c.arith(a.Index) // a[i]=v: the subscript is arithmetic
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				c.arith(e.Index)
			}
			c.word(e.Value)
		}
		return value{}
	}
	if a.Value == nil {
		return value{known: true, literal: true}
	}
	return c.word(a.Value)
}

// command classifies argv whose name may be computed.
func (c *classifier) command(args []value, stdin *source) {
	name := args[0]
	switch {
	case name.download:
		c.flag(Blocked, "runs a command whose name comes from a download")
		return
	case !name.known:
		c.flag(Explicit, "the command name is computed at run time ("+name.text()+"), so what runs cannot be seen")
		if r := rmCatastrophe(c, args[1:]); r != "" {
			c.flag(Blocked, "a command whose name is computed at run time ("+name.text()+") would, if it is rm, "+r)
		}
		return
	case !name.literal:
		c.atLeast(Ordinary) // a computed name is never read-only, whatever it resolves to
	}
	c.callAlias(args)
	c.callFunc(args, stdin)
	c.program(args, stdin)
}

// forkBomb reports a function whose body starts itself in a pipeline or in
// the background (`:(){ :|:& };:`). A function may have no name (an
// anonymous one, which runs where it stands) or several (zsh); each name is
// checked.
func forkBomb(fn *syntax.FuncDecl) bool {
	names := fn.Names
	if fn.Name != nil {
		names = append([]*syntax.Lit{fn.Name}, names...)
	}
	for _, n := range names {
		if forkBombNamed(fn, n.Value) {
			return true
		}
	}
	return false
}

func forkBombNamed(fn *syntax.FuncDecl, name string) bool {
	calls := func(s *syntax.Stmt) bool {
		found := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
				found = true
			}
			return !found
		})
		return found
	}
	bomb := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			bomb = bomb || n.Background && calls(n)
		case *syntax.BinaryCmd:
			bomb = bomb || (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (calls(n.X) || calls(n.Y))
		}
		return !bomb
	})
	return bomb
}
