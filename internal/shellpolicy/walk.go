package shellpolicy

import (
	"path"
	"path/filepath"
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
	attrs, posix := clone(c.caseAttrs), c.posix
	f()
	c.cwd, c.oldCwd, c.dirStack, c.vars, c.opaque, c.refs = cwd, old, stack, vars, opaque, refs
	c.caseAttrs, c.posix = attrs, posix
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
		computed := c.declCase(cmd)
		c.decl(cmd)
		if computed {
			c.declUnknown(cmd)
		}
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

// declCase records the case attributes (-l, -u; +l, +u remove them)
// declare, typeset and local give the names they assign, before the
// values are assigned. computed reports an option word computed at run
// time, which may be one of them.
func (c *classifier) declCase(d *syntax.DeclClause) (computed bool) {
	switch d.Variant.Value {
	case "declare", "typeset", "local":
	default:
		return false
	}
	lower, upper, given := false, false, false
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil || a.Value == nil {
			continue
		}
		o, ok := literal(a.Value)
		switch {
		case !ok:
			computed = true
		case len(o) > 1 && (o[0] == '-' || o[0] == '+'):
			if strings.ContainsAny(o[1:], "lu") {
				given = true
			}
			if strings.Contains(o[1:], "l") {
				lower = o[0] == '-'
			}
			if strings.Contains(o[1:], "u") {
				upper = o[0] == '-'
			}
		}
	}
	if !given {
		return computed
	}
	attr := byte(0)
	switch {
	case lower && !upper:
		attr = 'l'
	case upper && !lower:
		attr = 'u'
	}
	for _, a := range d.Args {
		if a.Name != nil {
			c.setCaseAttr(a.Name.Value, attr)
		}
	}
	return computed
}

// declUnknown makes the variables a declaration with a computed option
// assigned unknown: the option may change their case.
func (c *classifier) declUnknown(d *syntax.DeclClause) {
	for _, a := range d.Args {
		if a.Name != nil && !a.Naked && a.Index == nil {
			name := c.resolveRef(a.Name.Value)
			if _, ok := c.vars[name]; ok {
				c.generation++
				delete(c.vars, name)
			}
		}
	}
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
	var temps []tempVar         // x=v cmd: x is v while cmd runs
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
			if name == "POSIXLY_CORRECT" {
				c.posix = true // bash turns on its POSIX mode
			}
		default:
			if prefixVar(name) || name == "IFS" {
				if prefix == nil {
					prefix = map[string]value{}
				}
				prefix[name] = v
			}
			if a.Index != nil {
				v = value{opaque: v.opaque}
			}
			temps = append(temps, tempVar{name, v})
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
		for _, t := range temps { // no command word is left: the assignments stay
			c.setVar(t.name, t.v)
		}
		return source{visible: true}
	}
	if args[0].known && args[0].s == "set" {
		c.setOptions(args[1:])
	}
	var olds []oldVar
	if !args[0].known || specialBuiltin(args[0].s) || c.funcs[args[0].s] != nil {
		olds = c.setTemps(temps) // what eval, source and a function run sees
	}
	c.command(args, stdin)
	if n := c.globNames(ce.Args[0]); n > 1 {
		// /bin/r? with several matches runs the first with the others as
		// arguments; each is judged as the command, in case the shell's
		// filesystem differs.
		for _, alt := range args[1:n] {
			c.command(append([]value{alt}, args[n:]...), stdin)
		}
	}
	c.restoreTemps(olds, args[0])
	return c.emits(args, stdin)
}

// globNames is how many fields the command word w expanded to as a glob
// (0 when it is not one).
func (c *classifier) globNames(w *syntax.Word) int {
	pat := w.Lit()
	if !strings.ContainsAny(pat, "*?[") || strings.Contains(pat, "{") {
		return 0
	}
	return len(c.globFields(nil, c.word(w), pat))
}

// tempVar is an assignment before a command word.
type tempVar struct {
	name string
	v    value
}

// oldVar is what a variable held before a command's own assignment.
type oldVar struct {
	name       string
	s          string
	known, opq bool
	v          value // the command's value
}

// setTemps sets the assignments before a command for the time it runs
// (a function, eval or source, a script it starts see them) and returns
// what the variables held before.
func (c *classifier) setTemps(temps []tempVar) []oldVar {
	if len(temps) == 0 {
		return nil
	}
	olds := make([]oldVar, 0, len(temps))
	for _, t := range temps {
		s, known := c.vars[t.name]
		olds = append(olds, oldVar{t.name, s, known, c.opaque[t.name], t.v})
		c.setVar(t.name, t.v)
	}
	return olds
}

// restoreTemps ends the assignments before a command. Before a special
// builtin (:, eval, export, set …) they stay in a POSIX shell: sh (dash)
// always, bash under set -o posix. Where the shell is not known to be
// POSIX (this may be sh -c, or bash), a variable that is not its old value
// again is unknown afterwards: x=rm :; $x -rf / is rm in sh.
func (c *classifier) restoreTemps(olds []oldVar, name value) {
	if len(olds) == 0 {
		return
	}
	special := !name.known || specialBuiltin(name.s)
	posix := c.posix
	c.generation++
	for i := len(olds) - 1; i >= 0; i-- {
		o := olds[i]
		switch {
		case special && posix:
			c.setVar(o.name, o.v)
		case special && !(o.known && o.v.known && o.s == o.v.s):
			c.setVar(o.name, value{opaque: o.opq || o.v.opaque})
		default:
			if o.known {
				c.vars[o.name] = o.s
			} else {
				delete(c.vars, o.name)
			}
			if o.opq {
				c.opaque = set(c.opaque, o.name, true)
			} else {
				delete(c.opaque, o.name)
			}
		}
	}
}

// setOptions follows set -o posix (and +o posix).
func (c *classifier) setOptions(args []value) {
	for i := 0; i+1 < len(args); i++ {
		a := args[i].s
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') && strings.HasSuffix(a, "o") && args[i+1].s == "posix" {
			c.posix = a[0] == '-'
		}
	}
}

// specialBuiltin reports POSIX's special builtins, whose prefix
// assignments persist in a POSIX shell.
func specialBuiltin(name string) bool {
	switch name {
	case ":", ".", "eval", "export", "set", "shift", "trap", "unset", "exit", "return", "break", "continue",
		"readonly", "times", "exec", "source":
		return true
	}
	return false
}

// expandWord appends to out one argument word as the fields the shell
// makes of it: brace lists and sequences expanded, unquoted expansions
// split, and a glob of literal text matched against the filesystem.
func (c *classifier) expandWord(out []value, w *syntax.Word) []value {
	v := c.word(w)
	if len(w.Parts) == 1 && v.literal && strings.Contains(v.s, "{") {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok {
			for _, s := range braces(lit.Value) {
				x := v
				x.s = c.tilde(unescape(s, false))
				x.glob = strings.ContainsAny(s, "*?[")
				if x.glob {
					out = c.globFields(out, x, c.tilde(s))
					continue
				}
				out = append(out, x)
			}
			return out
		}
	}
	if v.glob && v.literal {
		if pat, ok := globPattern(w); ok {
			if strings.HasPrefix(pat, "~") {
				pat = c.tilde(pat)
			}
			return c.globFields(out, v, pat)
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

// globFields appends the paths the glob pattern pat (v's word) matches,
// as bash expands them: sorted, hidden names only for a pattern part that
// starts with a dot, and the word as written when nothing matches. A
// relative pattern needs the working directory. Past maxGlob paths, the
// word stays a glob, with any match among them that is catastrophic to
// delete, so rm's rules see it.
func (c *classifier) globFields(out []value, v value, pat string) []value {
	if !path.IsAbs(pat) && c.cwd == "" || !c.spend() {
		return append(out, v)
	}
	full := pat
	if !path.IsAbs(pat) {
		full = path.Join(c.cwd, pat)
	}
	matches, err := filepath.Glob(full)
	if err != nil || len(matches) == 0 {
		return append(out, v)
	}
	parts := strings.Split(full, "/")
	var names []string
	for _, m := range matches {
		if hiddenMatch(parts, strings.Split(m, "/")) {
			continue
		}
		if !path.IsAbs(pat) {
			m = strings.TrimPrefix(m, strings.TrimSuffix(c.cwd, "/")+"/")
		}
		names = append(names, m)
	}
	if len(names) == 0 {
		return append(out, v)
	}
	if c.catastrophic(v.s) {
		out = append(out, v) // rm -rf ~/*: what the glob stands for, as written
	}
	if len(names) > maxGlob {
		if !c.catastrophic(v.s) {
			out = append(out, v)
		}
		for _, m := range names {
			if c.catastrophic(m) {
				x := v
				x.s, x.glob = m, false
				out = append(out, x)
			}
		}
		return out
	}
	for _, m := range names {
		x := v
		x.s, x.glob = m, false
		out = append(out, x)
	}
	return out
}

// hiddenMatch reports a match whose name starting with a dot bash would
// not match: the pattern part there has a glob character and no leading dot.
func hiddenMatch(pat, match []string) bool {
	if len(pat) != len(match) {
		return false
	}
	for i, p := range pat {
		if strings.HasPrefix(match[i], ".") && !strings.HasPrefix(p, ".") && strings.ContainsAny(p, "*?[") {
			return true
		}
	}
	return false
}

// globPattern is w's text as a filepath.Match pattern: unquoted text as
// written (its backslashes escape), quoted text with its glob characters
// escaped; ok is false for a word with anything but literal text.
func globPattern(w *syntax.Word) (string, bool) {
	var b strings.Builder
	quote := func(s string) {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte(`*?[\`, s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				quote(ansiC(p.Value))
			} else {
				quote(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				quote(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
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
		if a.Append && a.Name != nil {
			// a+=(…) adds elements after the first, which $a stays.
			return c.current(a.Name.Value)
		}
		return value{}
	}
	v := value{known: true, literal: true}
	if a.Value != nil {
		v = c.word(a.Value)
	}
	if !a.Append || a.Name == nil || a.Index != nil || c.ints[c.resolveRef(a.Name.Value)] {
		return v // an integer's x+=v is arithmetic, judged by v
	}
	// x+=v appends to x's value.
	old := c.current(a.Name.Value)
	return value{s: old.s + v.s, known: old.known && v.known, literal: old.literal && v.literal,
		opaque: old.opaque || v.opaque, download: v.download || old.download, glob: v.glob, w: a.Value}
}

// current is a variable's value as a value: known, opaque or unknown.
func (c *classifier) current(name string) value {
	if s, ok := c.lookup(name); ok {
		return lit(s)
	}
	return value{s: "$" + name, opaque: c.isOpaque(name)}
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
