package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Read-only is proven, never assumed (CONTRACT.md §6.1, §12.6). A command
// is ReadOnly when the classifier's walk raised nothing (every program is a
// reader from the inspectors table with arguments its rule admits, every
// wrapper one of readerWrapper's, no write) and, on top of that, the parsed
// script has only the shapes readOnlyShape admits. The second check is an
// allow-list over the syntax tree itself, so a construct the walk does not
// know (or a new one the parser learns) can never be read-only by default.

// readOnlyShape reports whether every node of the script is one a
// read-only command may contain: simple commands, lists, pipelines,
// subshells and groups, [[ ]] without arithmetic, and words that are
// literal after quote removal but for plain $NAME expansions. No command,
// process or arithmetic substitution anywhere, no parameter expansion with
// an operator (${x/…/…}, ${x:…}, ${x[…]}, ${!x}, ${x@P} …), no function,
// loop or conditional, and no assignment that reaches a program's
// environment unless readerEnvName admits its name.
func (c *classifier) readOnlyShape(f *syntax.File) bool {
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case nil: // the walk's end of a node's children
		case *syntax.File, *syntax.Stmt, *syntax.Comment, *syntax.Redirect, *syntax.Word, *syntax.Lit,
			*syntax.SglQuoted, *syntax.DblQuoted, *syntax.ExtGlob, *syntax.BinaryCmd, *syntax.Subshell,
			*syntax.Block, *syntax.TimeClause, *syntax.TestClause, *syntax.ParenTest:
		case *syntax.CallExpr:
			ok = c.readerAssigns(n.Assigns, len(n.Args) > 0)
		case *syntax.DeclClause:
			ok = c.readerDecl(n)
		case *syntax.Assign:
			ok = n.Index == nil && n.Array == nil
		case *syntax.ParamExp:
			ok = n.Param != nil && n.Flags == nil && n.NestedParam == nil && !n.IsSet && simpleParam(n)
		case *syntax.BinaryTest:
			ok = !arithTest(n.Op)
		case *syntax.UnaryTest:
			ok = n.Op != syntax.TsVarSet && n.Op != syntax.TsRefVar // resolve a subscript
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// arithTest reports the [[ ]] comparisons that evaluate their operands as
// arithmetic.
func arithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// readerAssigns admits the assignments of a simple command: before a
// program (in its environment) only readerEnvName's names; alone (shell
// variables) any name that does not change what later commands run, unless
// it is already exported, when the environment rule applies.
func (c *classifier) readerAssigns(as []*syntax.Assign, prefix bool) bool {
	for _, a := range as {
		if a.Name == nil || !c.readerAssign(a.Name.Value, prefix) {
			return false
		}
	}
	return true
}

func (c *classifier) readerAssign(name string, exported bool) bool {
	if exported || c.env.Getenv != nil && c.env.Getenv(name) != "" {
		return readerEnvName(name)
	}
	return !riskyVar(name)
}

// readerDecl admits export/declare/local/readonly/typeset that only print
// or set plain variables: no -i (arithmetic on assignment), -n (nameref),
// -a/-A (subscripts), no name built at run time.
func (c *classifier) readerDecl(d *syntax.DeclClause) bool {
	allowed := "pfFrxg"
	switch d.Variant.Value {
	case "export":
		allowed = "pfn"
	case "declare", "typeset", "local", "readonly":
	default:
		return false
	}
	exported := d.Variant.Value == "export"
	for _, a := range d.Args {
		if a.Name != nil || a.Value == nil {
			continue
		}
		flag, lit := literal(a.Value)
		if !lit || len(flag) < 2 || flag[0] != '-' && flag[0] != '+' || strings.Trim(flag[1:], allowed) != "" {
			return false // a name built at run time, or an option that evaluates
		}
		exported = exported || flag[0] == '-' && strings.Contains(flag, "x")
	}
	for _, a := range d.Args {
		if a.Name != nil && !c.readerAssign(a.Name.Value, exported) {
			return false
		}
	}
	return true
}

// readerEnvName reports an environment variable a reader may be given
// without leaving read-only: locale, time zone, colour and width. Any other
// name (RIPGREP_CONFIG_PATH, GIT_*, *_CONFIG*, BASH_ENV, ENV, LD_*, PAGER,
// GCONV_PATH …) can make a reader load a configuration or run a program.
func readerEnvName(name string) bool {
	if strings.HasPrefix(name, "LC_") && isName(name) {
		return true
	}
	switch name {
	case "LANG", "LANGUAGE", "TZ", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS", "LINES",
		"TERM", "COLORTERM", "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "QUOTING_STYLE",
		"POSIXLY_CORRECT", "BLOCK_SIZE", "BLOCKSIZE", "DF_BLOCK_SIZE", "DU_BLOCK_SIZE", "LS_BLOCK_SIZE":
		return true
	}
	return false
}

// readerWrapper reports a wrapper that leaves its command read-only when
// the command is: it only times, limits or re-prioritises that one
// process, and writes nothing (time -o, strace -o), attaches to no other
// process (strace -p) and leaves nothing running (nohup, setsid).
func readerWrapper(name string, w wrapped) bool {
	switch name {
	case "time":
		return !has(w.opts, "-o", "--output", "-a", "--append")
	case "strace", "ltrace":
		return !has(w.opts, "-o", "--output", "-p", "--attach", "-ff", "--output-separately")
	case "nice", "timeout", "stdbuf", "command", "builtin", "exec", "env", "nocorrect", "noglob":
		return true
	}
	return false
}
