package shellpolicy

import (
	"slices"
	"strings"
)

// xargs runs its command with what stdin names appended (or in place of
// the -I replacement), the items split as xargs splits them: at blanks and
// newlines, or at the -0 / -d delimiter. Items it cannot see could be any
// argument, so such a command is never read-only.
func (c *classifier) xargs(args []value, stdin *source) {
	replace, delim, delimited, argFile := "", "", false, false
	var fileArg value
flags:
	for len(args) > 0 && strings.HasPrefix(args[0].s, "-") {
		a := args[0].s
		args = args[1:]
		switch {
		case a == "--":
			break flags
		case a == "-I" && len(args) > 0:
			replace, args = args[0].s, args[1:]
		case strings.HasPrefix(a, "-I") && len(a) > 2:
			replace = a[2:]
		case a == "-i" || a == "--replace":
			replace = "{}"
		case a == "-0" || a == "--null" || takesValue(a, "--null"):
			delim, delimited = "\x00", true
		case (a == "-d" || takesValue(a, "--delimiter")) && len(args) > 0:
			delim, delimited, args = ansiC(args[0].s), true, args[1:]
		case strings.HasPrefix(a, "-d") && len(a) > 2:
			delim, delimited = ansiC(a[2:]), true
		case strings.HasPrefix(a, "--delimiter="):
			delim, delimited = ansiC(strings.TrimPrefix(a, "--delimiter=")), true
		case takesValue(a, "-a", "--arg-file") && len(args) > 0:
			argFile, fileArg, args = true, args[0], args[1:]
		case strings.HasPrefix(a, "--arg-file="):
			argFile, fileArg = true, lit(strings.TrimPrefix(a, "--arg-file="))
		case strings.HasPrefix(a, "-a") && len(a) > 2:
			argFile, fileArg = true, lit(a[2:])
		case takesValue(a, "-E", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars",
			"--process-slot-var") && len(args) > 0:
			args = args[1:]
		}
	}
	cmd := append([]value(nil), args...)
	if len(cmd) == 0 {
		cmd = []value{lit("echo")}
	}
	if argFile {
		stdin = c.argFileSource(fileArg) // the items come from the file
	}
	items := xargsItems(stdin, delim, delimited)
	if items[0].download && len(cmd) > 0 && cmd[0].s != "echo" {
		c.flag(Explicit, "xargs runs "+cmd[0].text()+" with arguments a download chooses")
	}
	if stdin == nil || !stdin.visible {
		c.atLeast(Ordinary) // find's or ls's operands stand for what they print, not for it
	}
	if replace != "" {
		for i, a := range cmd {
			if strings.Contains(a.s, replace) {
				v := items[0]
				v.s = strings.ReplaceAll(a.s, replace, items[0].s)
				cmd[i] = v
			}
		}
	} else {
		cmd = append(cmd, items...)
	}
	c.command(cmd, nil)
}

// argFileSource is what xargs -a FILE reads: what this command line wrote
// there, or the file on disk.
func (c *classifier) argFileSource(f value) *source {
	if !f.known {
		return nil
	}
	abs := c.resolveLinks(c.absPath(f.s))
	if w, ok := c.files[abs]; ok {
		src := w.source()
		return &src
	}
	if c.mayHaveChanged(abs) {
		return nil
	}
	return &source{file: true, path: abs}
}

// xargsItems are the arguments xargs reads from stdin (a file it names is
// read), split as xargs splits them — by the delimiter, or at blanks with
// its quotes and backslashes removed — or one unknown item when they
// cannot be seen (a download when they come from one). The start points
// find prints first are items whatever the delimiter.
func xargsItems(stdin *source, delim string, delimited bool) []value {
	unknown := []value{{s: "…", known: false}}
	if stdin != nil && stdin.download {
		unknown[0].download = true
	}
	var fields []string
	text, visible := "", false
	if stdin != nil {
		text, visible = stdin.text, stdin.visible
		if !visible && stdin.file && stdin.path != "" {
			if b, ok := readSmall(stdin.path); ok {
				text, visible = string(b), true
			}
		}
	}
	switch {
	case stdin == nil || stdin.download:
		return unknown
	case visible && delimited:
		fields = strings.Split(strings.TrimSuffix(text, delim), delim)
		if delim == "" {
			fields = []string{text}
		}
	case visible:
		var err error
		if fields, err = shlexSplit(text); err != nil {
			return unknown // xargs stops at an unmatched quote
		}
	case len(stdin.operands) > 0:
		fields = stdin.operands
	}
	var items []value
	for _, f := range fields {
		if f != "" || delimited {
			items = append(items, lit(f))
		}
	}
	if len(items) == 0 {
		return unknown
	}
	return items
}

// find is read-only without actions; -delete and -exec are judged by what
// they would do to the starting points.
func (c *classifier) find(args []value) {
	starts := c.findStarts("find", args)
	for i, a := range args {
		if !a.literal {
			c.atLeast(Ordinary) // an expansion could be any expression, -delete included
		}
		switch a.s {
		case "-delete":
			c.atLeast(Ordinary)
			c.findDelete(starts, filtered(args[:i]))
		case "-exec", "-execdir", "-ok", "-okdir":
			c.atLeast(Ordinary)
			cmd := []value{}
			for _, b := range args[i+1:] {
				if b.s == ";" || b.s == "+" {
					break
				}
				if b.s == "{}" && len(starts) > 0 {
					b = lit(starts[0])
				}
				cmd = append(cmd, b)
			}
			if len(cmd) > 0 {
				c.command(cmd, nil)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.atLeast(Ordinary)
			if i+1 < len(args) {
				c.writeTarget(args[i+1])
			}
		}
	}
	for _, s := range starts {
		if c.treeHoldsSecrets(c.absPath(s)) {
			c.flag(Explicit, "walks a tree that holds secrets ("+s+")")
		}
	}
}

// findDelete judges find … -delete by where it starts and whether a test
// narrows what it matches: everything under a root is a catastrophe, the
// matches of a name test there need explicit approval, as does everything
// in the workspace.
func (c *classifier) findDelete(starts []string, filter bool) {
	for _, s := range starts {
		switch {
		case c.catastrophic(s) && !filter:
			c.flag(Blocked, "deletes everything under "+s+" (find "+s+" … -delete)")
		case c.catastrophic(s):
			c.flag(Explicit, "deletes files anywhere under "+s+" (find "+s+" … -delete)")
		case c.containsWorkspace(c.absPath(s)) && !filter:
			c.flag(Explicit, "deletes everything find reaches in the workspace (find "+s+" -delete)")
		}
	}
}

// filtered reports a find expression with a test that narrows the
// matches (-type alone does not).
func filtered(expr []value) bool {
	if slices.ContainsFunc(expr, func(a value) bool { return a.s == "-o" || a.s == "-or" || a.s == "," }) {
		return false // x -o -delete deletes whatever x does not match
	}
	for i, a := range expr {
		switch a.s {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if i+1 < len(expr) && strings.Trim(expr[i+1].s, "*") == "" {
				continue // -name '*' matches every file
			}
			return true
		case "-regex", "-iregex", "-newer",
			"-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-empty", "-user", "-group", "-perm",
			"-lname", "-ilname", "-inum", "-links", "-samefile":
			return true
		}
	}
	return false
}

func (c *classifier) fd(args []value) {
	if has(args, "-l", "--list-details") {
		c.atLeast(Ordinary) // runs ls on each match
	}
	for i, a := range args {
		if a.s == "-x" || a.s == "--exec" || a.s == "-X" || a.s == "--exec-batch" {
			c.atLeast(Ordinary)
			if i+1 < len(args) {
				c.command(args[i+1:], nil)
			}
			return
		}
		if !a.literal {
			c.atLeast(Ordinary)
		}
	}
}
