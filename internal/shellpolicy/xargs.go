package shellpolicy

import "strings"

// xargs runs its command with what stdin names appended (or in place of
// the -I replacement), the items split as xargs splits them: at blanks and
// newlines, or at the -0 / -d delimiter. Items it cannot see could be any
// argument, so such a command is never read-only.
func (c *classifier) xargs(args []value, stdin *source) {
	replace, delim, delimited, argFile := "", "", false, false
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
			argFile, args = true, args[1:]
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
		stdin = nil // the items come from the file
	}
	items := xargsItems(stdin, delim, delimited)
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

// xargsItems are the arguments xargs reads from stdin, or one unknown
// item when they cannot be seen.
func xargsItems(stdin *source, delim string, delimited bool) []value {
	unknown := []value{{s: "…", known: false}}
	var fields []string
	switch {
	case stdin == nil || stdin.download:
		return unknown
	case stdin.visible && delimited:
		fields = strings.Split(strings.TrimSuffix(stdin.text, delim), delim)
		if delim == "" {
			fields = []string{stdin.text}
		}
	case stdin.visible:
		fields = strings.Fields(stdin.text)
	case !delimited && len(stdin.operands) > 0:
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
	for _, a := range expr {
		switch a.s {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer",
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
