package shellpolicy

import (
	"os"
	"path"
	"slices"
	"strings"
)

// effects classifies what a command does that a later part of the command
// line depends on: the files it writes (tee, cp, curl -o …), which a later
// sh FILE or ./FILE runs; the variable printf -v sets; the variable name
// test -v resolves; the options curl reads from a file.
func (c *classifier) effects(name string, args []value, stdin *source) {
	switch name {
	case "printf":
		c.printfVar(args)
	case "test", "[":
		c.testBuiltin(name, args)
	case "tee":
		content := source{}
		if stdin != nil {
			content = *stdin
		}
		for _, op := range operands(args) {
			if op.known && op.s != "/dev/null" {
				c.wrote(c.absPath(op.s), content, has(args, "-a", "--append"))
			}
		}
	case "cp", "mv", "install":
		ops := copyOperands(name, args)
		if !recursive(args) && !has(args, "-a", "--archive", "-t", "--target-directory") &&
			!slices.ContainsFunc(args, func(a value) bool { return strings.HasPrefix(a.s, "--target-directory=") }) {
			c.copyFiles(name, ops)
			break
		}
		// A tree copy, or a target directory named first: what lands
		// where is not followed, so everything named counts as changed.
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.s, "--target-directory="); ok {
				a.s = v
				c.changed(a)
			}
		}
		for i, a := range args {
			if (a.s == "-t" || a.s == "--target-directory") && i+1 < len(args) {
				c.changed(args[i+1])
			}
		}
		for _, op := range ops {
			c.changed(op)
		}
	case "ln":
		// A hard link is the same file under a second name (ln -s is
		// recorded by c.ln): running either runs what was written to both.
		if ops := operands(args); !has(args, "-s", "--symbolic") && len(ops) == 2 && ops[0].known && ops[1].known {
			target := c.absPath(ops[1].s)
			if isDir(target) || strings.HasSuffix(ops[1].s, "/") {
				target = path.Join(target, path.Base(ops[0].s))
			}
			c.links = set(c.links, target, c.resolveLinks(c.absPath(ops[0].s)))
		} else if !has(args, "-s", "--symbolic") {
			for _, op := range ops {
				c.changed(op)
			}
		}
	case "dd":
		var in, out value
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.s, "if="); ok {
				in, in.s = a, v
			} else if v, ok := strings.CutPrefix(a.s, "of="); ok {
				out, out.s = a, v
			}
		}
		if out.s != "" {
			c.copyFiles("dd", []value{in, out})
		}
	case "curl", "wget":
		c.downloads(name, args)
		if name == "curl" {
			c.curl(args, stdin)
		}
	}
}

// wrapperOutputs are the files a wrapper itself writes: its log or
// output file, flock's lock file, script's typescript.
func wrapperOutputs(name string, w wrapped, args []value) []value {
	var out []value
	switch name {
	case "time", "strace", "ltrace":
		out = optionValues(w.opts, "-o", "--output")
	case "valgrind":
		out = optionValues(w.opts, "--log-file", "--xml-file")
	case "script":
		out = optionValues(w.opts, "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing")
		if len(w.inner) > 0 {
			out = append(out, w.inner[0])
		}
	case "flock":
		for _, a := range args {
			if !strings.HasPrefix(a.s, "-") {
				if !isDigits(a.s) {
					out = append(out, a) // the lock file, created when missing
				}
				break
			}
		}
	}
	return out
}

// optionValues are the values of options among a wrapper's options, in
// any of their spellings (-o F, -oF, --output F, --output=F).
func optionValues(opts []value, names ...string) []value {
	var out []value
	for i, o := range opts {
		for _, n := range names {
			v := o
			switch {
			case o.s == n && i+1 < len(opts):
				out = append(out, opts[i+1])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(o.s, n+"="):
				v.s = strings.TrimPrefix(o.s, n+"=")
				out = append(out, v)
			case !strings.HasPrefix(n, "--") && strings.HasPrefix(o.s, n) && len(o.s) > len(n):
				v.s = o.s[len(n):]
				out = append(out, v)
			}
		}
	}
	return out
}

// printfVar classifies printf -v NAME: the name's subscript is evaluated,
// and the variable gets what printf would print.
func (c *classifier) printfVar(args []value) {
	var n value
	var rest []value
	switch {
	case len(args) > 1 && args[0].s == "-v":
		n, rest = args[1], args[2:]
	case len(args) > 0 && strings.HasPrefix(args[0].s, "-v") && len(args[0].s) > 2:
		n, rest = args[0], args[1:]
		n.s = n.s[2:]
	default:
		return
	}
	c.varRef(n, "printf -v")
	if !n.known || !isName(n.s) || riskyVar(n.s) {
		c.atLeast(Ordinary) // assigns a variable that matters, or an array element
	}
	if !n.known || !isName(n.s) {
		return
	}
	v := value{opaque: true}
	if out := printf(rest); out.visible {
		v = lit(out.text)
	}
	c.assigned(n.s, v)
	c.setVar(n.s, v)
}

// copyFiles records cp/mv/install/dd SRC… DEST: each copy holds what its
// source holds, as far as that is known.
func (c *classifier) copyFiles(name string, ops []value) {
	if len(ops) < 2 {
		return
	}
	dst, srcs := ops[len(ops)-1], ops[:len(ops)-1]
	if !dst.known {
		return
	}
	into := len(srcs) > 1 || strings.HasSuffix(dst.s, "/") || isDir(c.absPath(dst.s))
	for _, src := range srcs {
		target := c.absPath(dst.s)
		if into {
			target = path.Join(target, path.Base(src.s))
		}
		abs := c.absPath(src.s)
		switch w, ok := c.files[abs]; {
		case !src.known || src.s == "":
			c.files = set(c.files, target, written{})
		case ok:
			c.files = set(c.files, target, w)
		default:
			c.files = set(c.files, target, written{from: abs})
		}
		if name == "mv" {
			delete(c.files, abs)
		}
	}
}

// downloads records the files curl -o and wget -O write: whatever runs
// them runs a download.
func (c *classifier) downloads(name string, args []value) {
	short, long := "-o", "--output"
	if name == "wget" {
		short, long = "-O", "--output-document"
	}
	for i, a := range args {
		var f string
		switch {
		case (a.s == short || a.s == long) && i+1 < len(args):
			f = args[i+1].s
		case strings.HasPrefix(a.s, long+"="):
			f = strings.TrimPrefix(a.s, long+"=")
		case strings.HasPrefix(a.s, short) && len(a.s) > 2:
			f = a.s[2:]
		}
		if f != "" && f != "-" {
			c.files = set(c.files, c.absPath(f), written{download: true})
		}
	}
}

// copyOperands are the operands of cp, mv or install, without the values
// of the options that take one (install -m 755, cp -S .bak).
func copyOperands(name string, args []value) []value {
	valuedOpts := []string{"-S", "--suffix"}
	if name == "install" {
		valuedOpts = append(valuedOpts, "-m", "--mode", "-o", "--owner", "-g", "--group", "--strip-program")
	}
	var out []value
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return append(out, args[i+1:]...)
		case valued(a.s, valuedOpts...) || a.s == "-t" || a.s == "--target-directory":
			i++
		case strings.HasPrefix(a.s, "-") && a.s != "-":
		default:
			out = append(out, a)
		}
	}
	return out
}

// resolveLinks follows the links this command line made (ln -s, ln) from
// abs, through its directories too (ln -s d e; e/x is d/x), as the kernel
// does, up to eight hops.
func (c *classifier) resolveLinks(abs string) string {
	for hop := 0; hop < 8 && len(c.links) > 0; hop++ {
		next := abs
		for p := abs; ; p = path.Dir(p) {
			if target, ok := c.links[p]; ok {
				next = path.Join(target, strings.TrimPrefix(abs, p))
				break
			}
			if p == "/" || p == "." || p == "" {
				break
			}
		}
		if next == abs {
			break
		}
		abs = next
	}
	return abs
}

// execFile classifies running a file by its path (./build.sh): a file
// this command line wrote is judged by what it wrote, a script on disk
// like sh FILE (scanFile), each with the interpreter its #! line names.
func (c *classifier) execFile(p string) {
	abs := c.resolveLinks(c.absPath(p))
	if c.lostFile(abs, p) {
		return
	}
	if w, ok := c.files[abs]; ok {
		lang := "sh"
		if w.visible {
			lang = shebangLang(w.text)
		}
		if lang == "" {
			c.flag(Explicit, "runs "+p+", which this command wrote, with an interpreter the classifier does not read")
		} else {
			c.runFile(lang, abs, p)
		}
		if argv := shebangArgv(w.text, abs); w.visible && argv != nil && !c.calling["#!"+abs] && c.depth < maxDepth {
			// #!/usr/bin/env -S bash -c '…': the #! line is a command line too.
			c.calling = set(c.calling, "#!"+abs, true)
			c.depth++
			c.command(argv, nil)
			c.depth--
			c.calling["#!"+abs] = false
		}
		return
	}
	b, ok := readSmall(abs)
	if !ok || !strings.HasPrefix(string(b), "#!") {
		return // a program, or nothing yet: what a build before it makes (go build -o app && ./app)
	}
	if c.changedFile(abs, p) {
		return // the script on disk now may not be what runs
	}
	if argv := shebangArgv(string(b), abs); argv != nil && !c.calling["#!"+abs] && c.depth < maxDepth {
		sub := c.sub()
		sub.calling = set(clone(c.calling), "#!"+abs, true)
		sub.command(argv, nil)
		if sub.class == Blocked {
			for _, r := range sub.reasons {
				c.flag(Blocked, p+"'s #! line runs a command that "+strings.TrimPrefix(r, "inline "))
			}
		}
	}
	if lang := shebangLang(string(b)); lang != "" {
		c.scanText(lang, string(b), p)
	}
}

// shebangArgv is the command line the kernel makes of a script's #! line
// when the line gives its interpreter an argument (everything after the
// interpreter's name is that one argument, spaces and all; env -S splits
// it again): the interpreter, the argument, the script. Without an
// argument it is nil, the script being all there is to judge.
func shebangArgv(text, script string) []value {
	line, _, _ := strings.Cut(text, "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return nil
	}
	rest = strings.Trim(rest, " \t\r")
	interp, arg, _ := strings.Cut(rest, " ")
	if arg = strings.Trim(arg, " \t"); interp == "" || arg == "" {
		return nil
	}
	return []value{lit(interp), lit(arg), lit(script)}
}

// shebangLang is the interpreter family of a script's #! line ("sh"
// without one: the shell runs a text file it cannot exec), or "".
func shebangLang(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(line, "#!") {
		return "sh"
	}
	f := strings.Fields(line[2:])
	for len(f) > 0 && (path.Base(f[0]) == "env" || strings.HasPrefix(f[0], "-")) {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	switch name := path.Base(f[0]); {
	case shellName(name):
		return "sh"
	default:
		return lang(name)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
