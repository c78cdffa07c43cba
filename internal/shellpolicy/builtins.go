package shellpolicy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash builtins that run a command or shell text through a side door:
// jobs -x runs its operands, compgen and complete run -C's command and -F's
// function and expand -W's word list, mapfile -C evaluates its callback,
// fc -s re-runs a line history -s stored, enable -f loads a shared library,
// and hash -p (or BASH_CMDS[NAME]=PATH, assign.go) makes a later NAME run
// another program. Each is judged by what it runs (tested in builtins_test.go).

// Keys of c.recorded: recHashKey+NAME+"\x00"+PATH for a command name bound to
// a program (the name "" is any name: one the classifier cannot see), and
// recHistoryKey+N for the lines history -s stored.
const (
	recHashKey    = "hash\x00"
	recHistoryKey = "history\x00"
)

// builtins classifies the builtins above, and a name hash -p or BASH_CMDS
// bound to a program, by what runs.
func (c *classifier) builtins(name string, rest []value, stdin *source) {
	c.hashed(name, rest, stdin)
	switch name {
	case "jobs":
		if opts, ops := getopts(rest, "lnprsx"); hasOpt(opts, 'x') && len(ops) > 0 {
			c.command(ops, stdin) // jobs -x CMD ARGS: job specs replaced by process groups
		}
	case "compgen", "complete":
		c.completion(name, rest)
	case "mapfile", "readarray":
		opts, _ := getopts(rest, "d:u:O:n:s:tC:c:")
		for _, o := range opts {
			if o.letter == 'C' {
				c.commandLine(o.v, name+" -C") // evaluated as CALLBACK INDEX LINE
			}
		}
	case "history":
		c.history(rest)
	case "fc":
		c.fc(rest)
	case "eval":
		if len(rest) > 0 && rest[0].known && rest[0].s == "--" {
			c.eval(rest[1:]) // bash skips --; rules.go's eval reads it as the command name
		}
	case "enable":
		if opts, _ := getopts(rest, "adnpsf:"); hasOpt(opts, 'f') {
			c.flag(Explicit, "loads a shared library into the shell as a builtin (enable -f)")
		}
	case "hash":
		c.hash(rest)
	case "kill":
		c.killAll(rest)
	case "printf":
		// printf -v 'BASH_CMDS[ls]' /bin/rm (writes.go assigns plain names only).
		if len(rest) > 1 && rest[0].s == "-v" && rest[1].known && strings.Contains(rest[1].s, "[") &&
			bashTableVar(rest[1].s) {
			v := value{opaque: true}
			if out := printf(rest[2:]); out.visible {
				v = lit(out.text)
			}
			c.bashTable(rest[1].s, v)
		}
	}
}

// builtinOpt is one option a builtin was given: its letter and, for one
// that takes a value, the value.
type builtinOpt struct {
	letter byte
	v      value
}

// getopts takes args apart as bash's internal_getopt does with spec (the
// option letters, a colon after one that takes a value, attached or the
// next word): the options up to the first operand or "--", and the rest.
func getopts(args []value, spec string) (opts []builtinOpt, ops []value) {
	for len(args) > 0 {
		a := args[0]
		if a.s == "--" {
			return opts, args[1:]
		}
		if !strings.HasPrefix(a.s, "-") || a.s == "-" {
			return opts, args
		}
		args = args[1:]
		for i := 1; i < len(a.s); i++ {
			o := builtinOpt{letter: a.s[i]}
			j := strings.IndexByte(spec, a.s[i])
			if j < 0 || j+1 >= len(spec) || spec[j+1] != ':' {
				opts = append(opts, o)
				continue
			}
			switch {
			case i+1 < len(a.s):
				o.v = a
				o.v.s = a.s[i+1:]
			case len(args) > 0:
				o.v, args = args[0], args[1:]
			default:
				o.v = value{} // a missing value: the builtin fails
			}
			opts = append(opts, o)
			break
		}
	}
	return opts, nil
}

func hasOpt(opts []builtinOpt, letter byte) bool {
	return slices.ContainsFunc(opts, func(o builtinOpt) bool { return o.letter == letter })
}

// completion classifies compgen and complete: -C's command runs (at once
// for compgen, at completion time for complete), -F's function is called,
// and -W's word list is expanded, substitutions included.
func (c *classifier) completion(name string, args []value) {
	opts, _ := getopts(args, "abcdefgjko:prsuvA:G:W:F:C:X:P:S:DEI")
	for _, o := range opts {
		switch o.letter {
		case 'C':
			c.commandLine(o.v, name+" -C")
		case 'F':
			switch {
			case !o.v.known:
				c.flag(Explicit, name+" -F calls a function the classifier cannot see ("+o.v.text()+")")
			case c.funcs[o.v.s] != nil:
				c.callFunc([]value{o.v, lit(name)}, nil)
			}
		case 'W':
			switch {
			case o.v.download:
				c.flag(Blocked, "expands a downloaded word list ("+name+" -W \"$(curl …)\")")
			case o.v.known:
				c.nested(": "+o.v.s, name+" -W")
			case o.v.opaque:
				c.flag(Explicit, name+" -W expands a word list the classifier cannot see ("+o.v.text()+")")
			}
		}
	}
}

// history -s stores its operands as one line, which fc -s (or !! in an
// interactive shell) runs later: a hard block in it is carried over, and
// the line is kept for fc -s's substitution.
func (c *classifier) history(args []value) {
	opts, ops := getopts(args, "acd:nprsw")
	if !hasOpt(opts, 's') || len(ops) == 0 {
		return
	}
	parts := make([]string, len(ops))
	for i, o := range ops {
		if !o.known {
			return // fc -s is Explicit whatever it re-runs
		}
		parts[i] = o.s
	}
	line := strings.Join(parts, " ")
	c.laterLine(line, "history -s stores a command that fc -s runs later, which")
	n := 0
	for k := range c.recorded {
		if strings.HasPrefix(k, recHistoryKey) {
			n++
		}
	}
	c.recorded = set(c.recorded, fmt.Sprintf("%s%06d", recHistoryKey, n), lit(line))
}

// laterLine carries over a hard block in shell text that runs later.
func (c *classifier) laterLine(text, what string) {
	if c.depth >= maxDepth {
		return
	}
	sub := c.sub()
	sub.nested(text, what)
	if sub.class == Blocked {
		for _, r := range sub.reasons {
			c.flag(Blocked, what+" "+r)
		}
	}
}

// fc re-runs commands from the history (fc -s [PAT=REP] [PREFIX], fc -e -
// …), or edits them with -e's editor (FCEDIT, EDITOR) and runs the result;
// fc -l only lists.
func (c *classifier) fc(args []value) {
	opts, ops := getopts(args, "e:lnrs")
	if hasOpt(opts, 'l') {
		return
	}
	c.flag(Explicit, "re-runs commands from the shell history, which the classifier cannot see (fc)")
	rerun := hasOpt(opts, 's')
	for _, o := range opts {
		if o.letter == 'e' {
			if o.v.known && o.v.s == "-" {
				rerun = true
			} else {
				c.commandLine(o.v, "fc -e")
			}
		}
	}
	if !rerun {
		return
	}
	var pat, rep, prefix string
	sub := false
	for _, o := range ops {
		if !o.known {
			return
		}
		if p, r, ok := strings.Cut(o.s, "="); ok && !sub && prefix == "" {
			pat, rep, sub = p, r, true
		} else if prefix == "" {
			prefix = o.s
		}
	}
	keys := make([]string, 0, len(c.recorded))
	for k := range c.recorded {
		if strings.HasPrefix(k, recHistoryKey) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		line := c.recorded[k].s
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if sub && pat != "" {
			line = strings.Replace(line, pat, rep, 1)
		}
		c.laterLine(line, "fc -s re-runs a stored command that")
	}
}

// hash -p PATH NAME… makes NAME run PATH from here on; hash -d NAME and
// hash -r forget.
func (c *classifier) hash(args []value) {
	opts, ops := getopts(args, "dlp:rt")
	if hasOpt(opts, 'r') {
		c.forget("")
	}
	for _, o := range opts {
		if o.letter != 'p' {
			continue
		}
		c.atLeast(Ordinary)
		if len(ops) == 0 {
			c.bindName(value{}, o.v) // no NAME: bash fails, but the path is judged
		}
		for _, n := range ops {
			c.bindName(n, o.v)
		}
		return
	}
	if hasOpt(opts, 'd') {
		for _, n := range ops {
			if n.known {
				c.forget(n.s)
			}
		}
	}
}

// bindName records that the command name (or any name, when it cannot be
// seen) runs program p (hash -p, BASH_CMDS[NAME]=PATH).
func (c *classifier) bindName(name, p value) {
	n := ""
	if name.known {
		n = name.s
	}
	key := recHashKey + n + "\x00" + p.s
	if !p.known {
		key = recHashKey + n + "\x00\x00" + p.text()
	}
	c.recorded = set(c.recorded, key, p)
}

// forget drops the programs recorded for name ("" = all).
func (c *classifier) forget(name string) {
	for k := range c.recorded {
		if strings.HasPrefix(k, recHashKey+name) && (name == "" || strings.HasPrefix(k, recHashKey+name+"\x00")) {
			delete(c.recorded, k)
		}
	}
}

// hashed classifies a command name bound to a program by hash -p or
// BASH_CMDS as that program run with the same arguments. A name written
// with a slash is not looked up by bash, but is judged so too: the
// stricter reading.
func (c *classifier) hashed(name string, rest []value, stdin *source) {
	if len(c.recorded) == 0 || c.calling["hash "+name] {
		return
	}
	var keys []string
	for k := range c.recorded {
		if strings.HasPrefix(k, recHashKey+name+"\x00") || strings.HasPrefix(k, recHashKey+"\x00") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := c.recorded[k]
		switch {
		case p.download:
			c.flag(Blocked, "runs "+name+" as a program named by a download (hash -p, BASH_CMDS)")
		case !p.known || p.s == "":
			c.flag(Explicit, "runs "+name+" as a program the classifier cannot see ("+p.text()+"; hash -p, BASH_CMDS)")
		default:
			c.atLeast(Ordinary)
			c.calling = set(c.calling, "hash "+name, true)
			c.program(append([]value{p}, rest...), stdin)
			c.calling["hash "+name] = false
		}
	}
}

// killAll blocks kill with -1 as a process operand, which signals every
// process the user can reach, wherever it stands (kill -9 -1 2): as bash's
// kill reads its words, the first -SIG is the signal, -s SIG and -n NUM
// name one, -l and -L list, and every other word is a process.
func (c *classifier) killAll(args []value) {
	signal := false
	i := 0
words:
	for i < len(args) {
		a := args[i].s
		switch {
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			return
		case a == "--":
			i++
			break words
		case a == "-s" || a == "-n" || a == "--signal":
			signal = true
			i += 2
		case strings.HasPrefix(a, "-") && len(a) > 1 && !signal:
			signal = true
			i++
		default:
			break words
		}
	}
	for _, op := range args[min(i, len(args)):] {
		if op.known && allProcesses(op.s) {
			c.flag(Blocked, "signals every process the user can reach (kill … "+op.s+")")
		}
	}
}

// allProcesses reports a process operand bash reads as -1 (-01, " -1").
func allProcesses(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "-") {
		return false
	}
	return strings.TrimLeft(s[1:], "0") == "1"
}

// bashTable classifies an assignment to BASH_CMDS or BASH_ALIASES, whose
// elements bind a command name to a program or an alias's text. The
// element's key is found in the parsed scripts: the assignment whose value
// is v's word, or, for a compound assignment (BASH_CMDS=([ls]=/bin/rm)),
// every element assigned to the array in this command line. name may carry
// its key (printf -v 'BASH_CMDS[ls]').
func (c *classifier) bashTable(name string, v value) {
	c.atLeast(Ordinary)
	table, key, hasKey := strings.Cut(name, "[")
	if hasKey {
		c.bindTable(table, lit(strings.TrimSuffix(key, "]")), v)
		return
	}
	var found []*syntax.Assign
	for _, f := range c.scripts {
		if f == nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if a, ok := n.(*syntax.Assign); ok && a.Name != nil && a.Name.Value == table &&
				(v.w != nil && a.Value == v.w || v.w == nil && a.Array != nil) {
				found = append(found, a)
			}
			return true
		})
	}
	if len(found) == 0 {
		c.bindTable(table, value{}, v) // nowhere to be seen: any name, this value
	}
	for _, a := range found {
		if a.Array == nil {
			c.bindTable(table, indexKey(a.Index), v)
			continue
		}
		for _, e := range a.Array.Elems {
			ev := value{}
			if e.Value != nil {
				if s, ok := literal(e.Value); ok {
					ev = lit(s)
				} else {
					ev.w = e.Value
				}
			}
			c.bindTable(table, indexKey(e.Index), ev)
		}
	}
}

// indexKey is an associative array's literal key, or an unknown value.
func indexKey(x syntax.ArithmExpr) value {
	if w, ok := x.(*syntax.Word); ok {
		if s, ok := literal(w); ok {
			return lit(s)
		}
	}
	return value{}
}

// bindTable records BASH_CMDS[key]=v as hash -p does, and
// BASH_ALIASES[key]=v as alias does (its text judged where it is set).
func (c *classifier) bindTable(table string, key, v value) {
	if table == "BASH_CMDS" {
		c.bindName(key, v)
		return
	}
	what := "BASH_ALIASES[" + key.s + "]="
	if !key.known {
		what = "BASH_ALIASES[…]="
		c.flag(Explicit, "defines an alias whose name the classifier cannot see (BASH_ALIASES)")
	}
	c.commandLine(v, what)
	if key.known && v.known {
		c.aliases = set(c.aliases, key.s, v.s)
	}
}

// bashFunc classifies BASH_FUNC_NAME%%=() { BODY; }, which every bash the
// command starts imports as the function NAME: the body is judged as code.
func (c *classifier) bashFunc(name string, v value) {
	c.atLeast(Ordinary)
	if v.known {
		v.s = strings.TrimPrefix(strings.TrimSpace(v.s), "()")
	}
	c.commandLine(v, name+"=")
}

// bashFuncVar reports a variable bash imports as a function.
func bashFuncVar(name string) bool {
	return strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%")
}
