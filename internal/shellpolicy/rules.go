package shellpolicy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	if strings.Contains(args[0].s, "/") {
		c.execFile(args[0].s)
	} else {
		for _, p := range c.pathWritten(args[0].s) {
			c.atLeast(Ordinary)
			c.execFile(p) // PATH=.:$PATH; x.sh runs the x.sh this command line wrote
		}
	}
	c.effects(name, rest, stdin)
	c.pathArgs(args, !inspector(name))
	c.runners(name, rest, stdin)
	c.builtins(name, rest, stdin)
	switch name { // the programs their flags name; the rest of their rules are below
	case "go":
		c.goTool(rest)
	case "cargo":
		c.cargo(rest)
	case "pytest", "py.test", "pytest-3":
		c.pytest(rest)
	case "npm", "pnpm", "yarn":
		c.packageScript(name, rest)
	}
	if name == "sed" {
		c.sed(rest, stdin)
		if !readOnlySed(c, rest) {
			c.mayChange(name, rest) // sed -i, w FILE
		}
	}
	switch name {
	case "eval":
		c.eval(rest)
	case "source", ".":
		c.source(rest, stdin)
	case "cd", "pushd", "popd":
		c.cd(name, rest)
	case "alias":
		c.alias(rest)
	case "trap":
		c.trap(rest)
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
	case "read", "mapfile", "readarray":
		c.atLeast(Ordinary)
		c.readBuiltin(name, rest, stdin)
	case "make", "gmake":
		c.make(rest, stdin)
	default:
		switch {
		case shellName(name):
			c.shell(name, rest, stdin)
			c.mayChange(name, rest)
		case lang(name) != "":
			c.interp(lang(name), name, rest, stdin)
			c.mayChange(name, rest)
		case c.system(name, rest), c.secretsCommand(name, rest), c.copiesTree(name, rest):
		case !c.inspect(name, rest):
			c.atLeast(Ordinary)
			c.mayChange(name, rest)
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

func (c *classifier) cd(name string, args []value) {
	ops := operands(args)
	from := c.cwd
	switch {
	case name == "popd":
		if len(ops) > 0 || len(c.dirStack) == 0 {
			c.cwd = "" // popd +N, or a stack from before this command line
		} else {
			c.cwd, c.dirStack = c.dirStack[len(c.dirStack)-1], c.dirStack[:len(c.dirStack)-1]
		}
	case name == "pushd" && (len(ops) == 0 && len(c.dirStack) > 0):
		top := c.dirStack[len(c.dirStack)-1] // pushd alone swaps the top two
		c.dirStack = append(c.dirStack[:len(c.dirStack)-1:len(c.dirStack)-1], from)
		c.cwd = top
		c.oldCwd = from
		return
	case name == "pushd" && (len(ops) == 0 || has(args, "-n") || strings.HasPrefix(ops[0].s, "+") ||
		strings.HasPrefix(ops[0].s, "-") && ops[0].s != "-"):
		c.cwd = "" // a rotation or an entry of a stack from before this command line
	case len(ops) == 0:
		c.cwd = c.env.Home
	case ops[0].known && ops[0].s == "-":
		c.cwd = c.oldCwd // $OLDPWD, which cd keeps (an assignment to it included)
		if v, ok := c.vars["OLDPWD"]; ok {
			c.cwd = v
		} else if c.opaque["OLDPWD"] {
			c.cwd = ""
		}
	case ops[0].known && c.cdpath(ops[0].s):
		c.cwd = c.viaCDPATH(ops[0].s)
	case ops[0].known && (c.cwd != "" || path.IsAbs(c.tilde(ops[0].s))):
		c.cwd = c.absPath(c.tilde(ops[0].s))
	default:
		c.cwd = "" // unknown from here on
	}
	if name == "pushd" {
		c.dirStack = append(c.dirStack[:len(c.dirStack):len(c.dirStack)], from)
	}
	c.oldCwd = from
	c.setVar("OLDPWD", value{s: from, known: from != "", literal: true, opaque: from == ""})
	c.setVar("PWD", value{s: c.cwd, known: c.cwd != "", literal: true, opaque: c.cwd == ""})
}

// viaCDPATH is where cd DIR goes with the CDPATH this command line set:
// the first entry holding DIR (an empty entry is the working directory);
// unknown when CDPATH cannot be seen or no entry holds DIR yet.
func (c *classifier) viaCDPATH(dir string) string {
	v, ok := c.vars["CDPATH"]
	if !ok {
		return ""
	}
	for _, e := range strings.Split(v, ":") {
		base := c.cwd
		if e != "" {
			base = c.absPath(c.tilde(e))
		}
		if base == "" || !path.IsAbs(base) {
			return ""
		}
		if cand := path.Join(base, dir); isDir(cand) {
			return cand
		}
	}
	return "" // none there yet: one this command line makes first (mkdir -p d/e) may be
}

// cdpath reports a cd target that CDPATH, set in this command line or
// unknown there, could resolve elsewhere: a relative name not starting
// with ./ or ../.
func (c *classifier) cdpath(dir string) bool {
	if path.IsAbs(dir) || dir == "." || dir == ".." || strings.HasPrefix(dir, "./") || strings.HasPrefix(dir, "../") {
		return false
	}
	v, set := c.vars["CDPATH"]
	return set && v != "" || c.opaque["CDPATH"]
}

// alias bodies are classified where they are defined: with expand_aliases
// a later word runs them.
func (c *classifier) alias(args []value) {
	for _, a := range args {
		if name, body, ok := strings.Cut(a.s, "="); ok {
			c.nested(body, "alias "+name)
			if a.known {
				c.aliases = set(c.aliases, name, body)
			}
		}
	}
}

// callAlias classifies a command named by an alias the script defined
// (alias r='rm -rf'; r /): with expand_aliases on, bash runs the alias's
// text followed by the rest of the words, so that is what is judged. An
// alias is not expanded inside its own expansion (alias ls='ls -l').
func (c *classifier) callAlias(args []value) {
	name := args[0].s
	body, ok := c.aliases[name]
	if !ok || c.calling["alias "+name] {
		return
	}
	c.atLeast(Ordinary)
	parts := []string{body}
	for _, a := range args[1:] {
		q, err := syntax.Quote(a.s, syntax.LangBash)
		if !a.known || err != nil {
			c.flag(Explicit, "runs the alias "+name+" with an argument the classifier cannot see ("+a.text()+")")
			return
		}
		parts = append(parts, q)
	}
	c.calling = set(c.calling, "alias "+name, true)
	c.nested(strings.Join(parts, " "), "alias "+name)
	c.calling["alias "+name] = false
}

// trap ACTION SIGNAL… runs ACTION, shell text, when a signal arrives or the
// shell exits (EXIT), so it is judged as that text; trap alone or with
// -p/-l only prints, and "-", "" or a lone signal reset or ignore.
func (c *classifier) trap(args []value) {
	if len(args) == 0 || args[0].s == "-p" || args[0].s == "-l" {
		return
	}
	c.atLeast(Ordinary)
	if len(args) > 0 && args[0].s == "--" {
		args = args[1:]
	}
	if len(args) < 2 || args[0].known && (args[0].s == "-" || args[0].s == "") {
		return
	}
	c.commandLine(args[0], "trap")
}

// ln remembers the symlinks a script makes, so rm -rf link/ is judged by
// where it points.
func (c *classifier) ln(args []value) {
	c.atLeast(Ordinary)
	ops := operands(args)
	if len(ops) == 1 && ops[0].known {
		ops = append(ops, lit(path.Base(ops[0].s))) // ln -s TARGET makes ./TARGET's name
	}
	if has(args, "-s", "--symbolic") && len(ops) == 2 && ops[0].known && ops[1].known {
		link := c.absPath(ops[1].s)
		if isDir(link) || strings.HasSuffix(ops[1].s, "/") {
			link = path.Join(link, path.Base(ops[0].s))
		}
		target := ops[0].s // a relative target is relative to the link's directory
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(link), target)
		}
		c.links = set(c.links, link, path.Clean(target))
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
		case !path.IsAbs(abs) && op.known && !strings.HasPrefix(op.s, "~"):
			// cd "$X"; rm -rf *: which tree goes cannot be seen
			c.flag(Explicit, "deletes "+op.s+" recursively in a directory the classifier lost track of (rm -r "+op.s+")")
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
		srcs := copyOperands(name, args) // mv -t DIR SRC…: every operand is a source
		if !has(args, "-t", "--target-directory") &&
			!slices.ContainsFunc(args, func(a value) bool { return strings.HasPrefix(a.s, "--target-directory=") }) {
			srcs = srcs[:max(len(srcs)-1, 0)]
		}
		for _, a := range srcs {
			if c.catastrophic(a.s) {
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
