package shellpolicy

import (
	"path"
	"strings"
)

// program classifies a command whose name is known.
func (c *classifier) program(args []value, stdin *source) {
	name, rest := path.Base(args[0].s), args[1:]
	if dir := path.Dir(args[0].s); strings.Contains(args[0].s, "/") && !systemBin(dir) {
		// ./ls is whatever the workspace put there; the rules of ls still
		// apply to what it is named after, but it is never read-only.
		c.atLeast(Ordinary)
	} else if !strings.Contains(args[0].s, "/") && c.workspaceProgram(name) {
		c.atLeast(Ordinary) // the same, found through a PATH entry in the workspace
	}
	if c.wrapper(name, rest, stdin) {
		return
	}
	if name == "printf" && len(rest) > 1 && rest[0].s == "-v" && (!rest[1].known || riskyVar(rest[1].s)) {
		c.atLeast(Ordinary) // bash's printf -v assigns the variable
	}
	c.pathArgs(args, !inspector(name))
	if name == "sed" {
		c.sed(rest, stdin)
	}
	switch name {
	case "eval":
		c.eval(rest)
	case "source", ".":
		c.source(rest, stdin)
	case "cd", "pushd":
		c.cd(rest)
	case "alias":
		c.alias(rest)
	case "ln":
		c.ln(rest)
	case "xargs":
		c.xargs(rest, stdin)
	case "rm":
		c.rm(rest)
	case "find":
		c.find(rest)
	case "fd", "fdfind":
		c.fd(rest)
	case "git":
		c.git(rest)
	case "tmux":
		c.tmux(rest)
	default:
		switch {
		case shellName(name):
			c.shell(name, rest, stdin)
		case lang(name) != "":
			c.interp(lang(name), name, rest, stdin)
		case c.system(name, rest), c.secretsCommand(name, rest), c.copiesTree(name, rest):
		case !c.inspect(name, rest):
			c.atLeast(Ordinary)
		}
	}
}

func systemBin(dir string) bool {
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin":
		return true
	}
	return false
}

// eval runs its joined arguments as a script.
func (c *classifier) eval(args []value) {
	c.atLeast(Ordinary)
	parts := make([]string, len(args))
	for i, a := range args {
		switch {
		case a.download:
			c.flag(Blocked, "runs a downloaded script (eval \"$(curl …)\")")
			return
		case !a.known:
			c.flag(Explicit, "eval runs code the classifier cannot see ("+a.text()+")")
			return
		}
		parts[i] = a.s
	}
	c.nested(strings.Join(parts, " "), "eval")
}

// source runs a file, or what a pipe or process substitution feeds it, in
// this shell.
func (c *classifier) source(args []value, stdin *source) {
	c.atLeast(Ordinary)
	if len(args) == 0 {
		return
	}
	switch a := args[0]; {
	case a.proc != nil:
		c.runCode("sh", *a.proc, "source")
	case stdinPath(a.s) && stdin != nil:
		c.runCode("sh", *stdin, "source")
	default:
		c.scriptFile(a.s, "source")
	}
}

func (c *classifier) cd(args []value) {
	ops := operands(args)
	switch {
	case len(ops) == 0:
		c.cwd = c.env.Home
	case ops[0].known && ops[0].s != "-":
		c.cwd = c.absPath(ops[0].s)
	default:
		c.cwd = "" // unknown from here on
	}
}

// alias bodies are classified where they are defined: with expand_aliases
// a later word runs them.
func (c *classifier) alias(args []value) {
	for _, a := range args {
		if name, body, ok := strings.Cut(a.s, "="); ok {
			c.nested(body, "alias "+name)
		}
	}
}

// ln remembers the symlinks a script makes, so rm -rf link/ is judged by
// where it points.
func (c *classifier) ln(args []value) {
	c.atLeast(Ordinary)
	ops := operands(args)
	if has(args, "-s", "--symbolic") && len(ops) == 2 && ops[0].known && ops[1].known {
		c.links[c.absPath(ops[1].s)] = c.absPath(ops[0].s)
	}
}

// copiesTree flags archivers and copiers of a tree that holds the user's
// credentials (tar czf x.tgz ~), and copies onto a disk device; it reports
// whether name was such a command.
func (c *classifier) copiesTree(name string, args []value) bool {
	switch name {
	case "tar", "zip", "7z", "rsync", "scp", "rclone", "cp", "cpio", "install", "tee":
	default:
		return false
	}
	ops := operands(args)
	switch name {
	case "tar", "zip", "7z", "rsync", "scp", "rclone", "cp", "cpio":
		if name == "cp" && !has(args, "-r", "-R", "-a", "--recursive", "--archive") {
			break
		}
		for _, o := range ops {
			if c.treeHoldsSecrets(c.absPath(o.s)) {
				c.flag(Explicit, "copies a tree that holds secrets ("+name+" … "+o.s+")")
			}
		}
	}
	switch name {
	case "cp", "install", "tee":
		for i, o := range ops {
			if blockDevice(o.s) && (name == "tee" || i == len(ops)-1) {
				c.flag(Blocked, "writes onto a disk device ("+name+" … "+o.s+")")
			}
		}
	}
	c.atLeast(Ordinary)
	return true
}

// xargs runs its command with what stdin names appended (or in place of
// the -I replacement).
func (c *classifier) xargs(args []value, stdin *source) {
	replace := ""
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
		case takesValue(a, "-d", "--delimiter", "-E", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars",
			"-a", "--arg-file", "--process-slot-var") && len(args) > 0:
			args = args[1:]
		}
	}
	cmd := append([]value(nil), args...)
	if len(cmd) == 0 {
		cmd = []value{lit("echo")}
	}
	var items []value
	switch {
	case stdin == nil || stdin.download:
		items = []value{{s: "…", known: false}}
	case len(stdin.operands) > 0:
		for _, o := range stdin.operands {
			items = append(items, lit(o))
		}
	case stdin.visible && len(strings.Fields(stdin.text)) > 0:
		for _, o := range strings.Fields(stdin.text) {
			items = append(items, lit(o))
		}
	default:
		items = []value{{s: "…", known: false}} // unknown items could be any argument
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

func (c *classifier) rm(args []value) {
	c.atLeast(Ordinary)
	if r := rmCatastrophe(c, args); r != "" {
		c.flag(Blocked, r)
		return
	}
	if !recursive(args) {
		return
	}
	for _, op := range operands(args) {
		abs := c.absPath(op.s)
		switch {
		case path.Base(abs) == ".git":
			c.flag(Explicit, "deletes a git repository's history and configuration (rm -r "+op.s+")")
		case c.containsWorkspace(abs):
			c.flag(Explicit, "deletes the workspace itself or a directory that contains it (rm -r "+op.s+")")
		}
	}
}

// rmCatastrophe is the reason rm with args would delete a root, or "".
func rmCatastrophe(c *classifier, args []value) string {
	if has(args, "--no-preserve-root") {
		return "deletes with --no-preserve-root"
	}
	if !recursive(args) {
		return ""
	}
	for _, op := range operands(args) {
		if c.catastrophic(op.s) {
			return "recursively deletes the filesystem root, a top-level system directory or the home directory (rm -r " + op.s + ")"
		}
	}
	return ""
}

func recursive(args []value) bool { return has(args, "-r", "-R", "--recursive") }

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

// system classifies commands that change the machine itself; it reports
// whether name was one of them.
func (c *classifier) system(name string, args []value) bool {
	ops := operands(args)
	switch {
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs" ||
		name == "blkdiscard" || name == "mkdosfs" || name == "mkntfs":
		c.flag(Blocked, "formats or wipes a filesystem ("+name+")")
	case name == "fdisk" || name == "sfdisk" || name == "parted" || name == "gdisk" || name == "sgdisk" || name == "cfdisk":
		c.atLeast(Ordinary)
		if !has(args, "-l", "--list", "-s", "--show-size") && !(len(ops) > 1 && ops[1].s == "print") {
			c.flag(Blocked, "edits a disk's partition table ("+name+")")
		}
	case name == "dd":
		c.atLeast(Ordinary)
		for _, a := range args {
			if strings.HasPrefix(a.s, "of=") && device(a.s[3:]) {
				c.flag(Blocked, "writes raw data onto a device (dd "+a.s+")")
			}
		}
	case name == "shred":
		c.atLeast(Ordinary)
		for _, a := range ops {
			if device(a.s) {
				c.flag(Blocked, "shreds a device ("+a.s+")")
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		c.atLeast(Ordinary)
		if recursive(args) {
			for _, a := range ops {
				if c.catastrophic(a.s) {
					c.flag(Blocked, "recursively changes ownership or permissions of "+a.s+" ("+name+" -R)")
				}
			}
		}
	case name == "mv":
		c.atLeast(Ordinary)
		for i, a := range ops {
			if i < len(ops)-1 && c.catastrophic(a.s) {
				c.flag(Blocked, "moves the filesystem root, a system directory or the home directory away (mv "+a.s+")")
			}
		}
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff" || name == "killall5" ||
		name == "init" && len(ops) > 0 && (ops[0].s == "0" || ops[0].s == "6") ||
		name == "systemctl" && len(ops) > 0 && (ops[0].s == "poweroff" || ops[0].s == "reboot" || ops[0].s == "halt" || ops[0].s == "kexec"):
		c.flag(Blocked, "shuts down or reboots the machine ("+name+")")
	case name == "kill" && len(args) >= 2 && args[len(args)-1].s == "-1":
		c.flag(Blocked, "signals every process the user can reach (kill … -1)")
	default:
		return false
	}
	return true
}

// device reports a device node other than the harmless ones.
func device(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/random", "/dev/urandom":
		return false
	}
	return strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "/dev/fd/")
}
