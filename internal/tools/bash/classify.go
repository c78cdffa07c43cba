package bash

import (
	"bytes"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// parseCommand parses a command line as bash.
func parseCommand(command string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// ReadOnly reports whether command only inspects the machine, so it may run
// without approval and alongside other calls: every simple command is on the
// inspection list with harmless arguments, output goes nowhere but the
// result (or /dev/null), and nothing is left running in the background. A
// command that does not parse is not read-only.
func ReadOnly(command string) bool {
	if strings.TrimSpace(command) == "" {
		return false
	}
	f, err := parseCommand(command)
	return err == nil && len(f.Stmts) > 0 && readOnlyStmts(f.Stmts)
}

func readOnlyStmts(stmts []*syntax.Stmt) bool {
	for _, s := range stmts {
		if !readOnlyStmt(s) {
			return false
		}
	}
	return true
}

func readOnlyStmt(s *syntax.Stmt) bool {
	if s == nil || s.Background || s.Coprocess || s.Disown {
		return false
	}
	for _, r := range s.Redirs {
		if !harmlessRedirect(r) || !substitutionsReadOnly(r) {
			return false
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		return substitutionsReadOnly(c) && readOnlyCall(c)
	case *syntax.BinaryCmd: // &&, ||, |, |&
		return readOnlyStmt(c.X) && readOnlyStmt(c.Y)
	case *syntax.Subshell:
		return readOnlyStmts(c.Stmts)
	case *syntax.Block:
		return readOnlyStmts(c.Stmts)
	default:
		return false
	}
}

// harmlessRedirect admits reading redirections, fd duplication (2>&1) and
// writes to /dev/null; any other write is a mutation.
func harmlessRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplOut:
		w := r.Word.Lit()
		return w == "-" || isDigits(w)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return r.Word.Lit() == "/dev/null"
	}
	return false
}

// substitutionsReadOnly requires every command or process substitution
// inside node to be read-only itself.
func substitutionsReadOnly(node syntax.Node) bool {
	ok := true
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			ok = ok && readOnlyStmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			ok = ok && readOnlyStmts(n.Stmts)
			return false
		}
		return ok
	})
	return ok
}

func readOnlyCall(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return true // plain assignments only change this throwaway shell
	}
	name := c.Args[0].Lit()
	rule, known := inspectors()[name]
	if !known {
		return false
	}
	args := make([]string, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		lit := w.Lit()
		if lit == "" && !isQuotedLiteral(w) {
			// An expanded argument could turn into any flag; only commands
			// with no dangerous flags accept it.
			if rule != nil {
				return false
			}
			lit = wordString(w)
		}
		args = append(args, unquote(w, lit))
	}
	return rule == nil || rule(args)
}

// inspectors maps the commands that can be read-only to the check of their
// arguments; nil means any arguments are harmless.
var inspectors = sync.OnceValue(func() map[string]func([]string) bool {
	return map[string]func([]string) bool{
		"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil, "echo": nil, "printf": nil,
		"grep": nil, "egrep": nil, "fgrep": nil, "file": nil, "stat": nil, "du": nil, "df": nil, "which": nil,
		"whoami": nil, "id": nil, "uname": nil, "basename": nil, "dirname": nil, "realpath": nil,
		"readlink": nil, "diff": nil, "cmp": nil, "cut": nil, "tr": nil, "nl": nil, "jq": nil, "true": nil,
		"false": nil, "test": nil, "[": nil, "printenv": nil, "type": nil, "md5sum": nil, "sha1sum": nil,
		"sha256sum": nil, "sha512sum": nil, "tac": nil, "rev": nil, "od": nil, "hexdump": nil, "strings": nil,
		"column": nil, "fold": nil, "ps": nil, "comm": nil, "expand": nil, "seq": nil, "cd": nil,
		"rg":       without("--pre", "--pre-glob"),
		"tree":     without("-o"),
		"sort":     without("-o", "--output"),
		"fd":       without("-x", "--exec", "-X", "--exec-batch"),
		"fdfind":   without("-x", "--exec", "-X", "--exec-batch"),
		"find":     without("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
		"uniq":     atMostOperands(1),
		"xxd":      func(a []string) bool { return atMostOperands(1)(a) && !has(a, "-r", "-revert") },
		"env":      func(a []string) bool { return len(a) == 0 },
		"hostname": func(a []string) bool { return len(a) == 0 },
		"date":     readOnlyDate,
		"sed":      readOnlySed,
		"git":      readOnlyGit,
		"go":       readOnlyGo,
	}
})

// without rejects arguments equal to (or of the form flag=…) any of flags.
func without(flags ...string) func([]string) bool {
	return func(args []string) bool { return !has(args, flags...) }
}

// has reports whether any argument is one of flags, spelled any way the
// flag could be: exactly, with =value, as a prefix of a longer long option,
// or (for one-letter flags) inside a bundle such as -ro.
func has(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			switch {
			case a == f || strings.HasPrefix(a, f+"="):
				return true
			case strings.HasPrefix(f, "--") && strings.HasPrefix(a, f):
				return true
			case len(f) == 2 && f[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0:
				return true
			}
		}
	}
	return false
}

func operands(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

func atMostOperands(n int) func([]string) bool {
	return func(args []string) bool { return len(operands(args)) <= n }
}

// readOnlyDate refuses setting the clock (-s, or an operand not starting
// with '+').
func readOnlyDate(args []string) bool {
	if has(args, "-s", "--set") {
		return false
	}
	for _, op := range operands(args) {
		if !strings.HasPrefix(op, "+") {
			return false
		}
	}
	return true
}

var sedPrint = lazyre.New(`^\s*((\d+|\$)(\s*,\s*(\d+|\$))?|/[^/]*/)?\s*p\s*$`)

// readOnlySed admits only `sed -n '<range>p' [files]`: sed scripts can write
// files (w, -i) or run commands (e), so anything else needs approval.
func readOnlySed(args []string) bool {
	quiet, script := false, ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-n" || a == "--quiet" || a == "--silent":
			quiet = true
		case a == "-E" || a == "-r":
		case a == "-e" && i+1 < len(args):
			if script != "" {
				return false
			}
			i++
			script = args[i]
		case strings.HasPrefix(a, "-"):
			return false
		case script == "":
			script = a
		}
	}
	return quiet && sedPrint().MatchString(script)
}

var gitInspect = sync.OnceValue(func() map[string]func([]string) bool {
	return map[string]func([]string) bool{
		"status": nil, "diff": nil, "log": nil, "show": nil, "blame": nil, "rev-parse": nil, "ls-files": nil,
		"ls-tree": nil, "cat-file": nil, "describe": nil, "shortlog": nil, "rev-list": nil, "merge-base": nil,
		"show-ref": nil, "name-rev": nil, "for-each-ref": nil, "count-objects": nil,
		"grep":   without("-O", "--open-files-in-pager"),
		"branch": onlyFlags("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current", "--no-color", "--color"),
		"tag":    onlyFlags("-l", "--list", "-n"),
		"remote": onlyFlags("-v", "--verbose"),
		"config": func(a []string) bool {
			return len(a) > 0 && onlyFlags("--get", "--get-all", "--get-regexp", "--list", "-l")(a[:1])
		},
		"reflog":   func(a []string) bool { return len(a) == 0 || a[0] == "show" || strings.HasPrefix(a[0], "-") },
		"stash":    func(a []string) bool { return len(a) > 0 && (a[0] == "list" || a[0] == "show") },
		"worktree": func(a []string) bool { return len(a) > 0 && a[0] == "list" },
	}
})

// readOnlyGit admits inspection subcommands. Global options are refused:
// `-c` can configure a command to run and `-C` leaves the working directory.
func readOnlyGit(args []string) bool {
	for len(args) > 0 && (args[0] == "--no-pager" || args[0] == "-P") {
		args = args[1:]
	}
	if len(args) == 0 || has(args, "--output") {
		return false
	}
	rule, ok := gitInspect()[args[0]]
	return ok && (rule == nil || rule(args[1:]))
}

// onlyFlags admits arguments that are exactly one of allowed; a bundle like
// -ad is refused because it could carry a mutating letter.
func onlyFlags(allowed ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			ok := false
			for _, f := range allowed {
				ok = ok || a == f
			}
			if !ok {
				return false
			}
		}
		return true
	}
}

func readOnlyGo(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "version":
		return true
	case "env":
		return !has(args[1:], "-w", "-u")
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isQuotedLiteral reports a word made only of quoted literal text ('x',
// "x"), which is as fixed as a bare literal.
func isQuotedLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// unquote returns the value of a literal or quoted-literal word.
func unquote(w *syntax.Word, fallback string) string {
	if !isQuotedLiteral(w) {
		return fallback
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				b.WriteString(q.(*syntax.Lit).Value)
			}
		}
	}
	return b.String()
}

// wordString prints a word as written.
func wordString(w *syntax.Word) string {
	var buf bytes.Buffer
	_ = syntax.NewPrinter().Print(&buf, w)
	return buf.String()
}
