package shellpolicy

import (
	"path"
	"strings"
)

// wrapper classifies a command that runs another (sudo, env, timeout,
// watch, script -c, unshare …; the table is wrapperOf) by what it runs, and
// reports whether name was one.
func (c *classifier) wrapper(name string, args []value, stdin *source) bool {
	w, ok := splitWrapper(name, args)
	if !ok {
		return false
	}
	switch name {
	case "sudo", "doas", "pkexec", "run0", "su", "runuser":
		c.flag(Explicit, "runs with raised privileges ("+name+")")
	case "systemd-run":
		c.flag(Explicit, "has the service manager start the command, outside the sandbox (systemd-run)")
	case "command":
		if has(w.opts, "-v", "-V") {
			return true // prints what a name is
		}
	}
	if !readerWrapper(name, w) {
		c.atLeast(Ordinary)
	}
	for _, f := range wrapperOutputs(name, w, args) {
		c.writeTarget(f) // time -o, strace -o, valgrind --log-file, flock FILE, script FILE
	}
	// What the wrapper runs, it runs in the directory its options name:
	// env -C ~/.aws cat credentials reads a secret, as cd ~/.aws would.
	// Only the shell's own prefixes run a builtin in this shell; any other
	// wrapper is a process, so neither its directory nor a cd it runs
	// (env cd /tmp) moves the commands after it.
	if !shellPrefix(name) {
		outer := c.cwd
		defer func() { c.cwd = outer }()
	}
	if dir, ok := c.innerDir(name, w); ok {
		c.cwd = dir
	}
	if name == "env" {
		c.envWrapper(w.assigns, len(w.inner) == 0 && len(w.scripts) == 0)
	}
	for _, a := range w.assigns {
		n, val, _ := strings.Cut(a.s, "=")
		if !readerEnvName(n) {
			c.atLeast(Ordinary)
		}
		v := a
		v.s = val
		c.assigned(n, v)
	}
	for i, s := range w.scripts {
		c.commandLine(s, name+" "+w.what[i])
	}
	c.wrapped(name, w, stdin)
	return true
}

// wrapped classifies what follows a wrapper's options.
func (c *classifier) wrapped(name string, w wrapped, stdin *source) {
	kind := w.spec.runs
	if w.direct {
		kind = runsArgv
	}
	switch {
	case kind == runsTemplate:
		c.parallel(w, stdin)
	case kind == runsShellArgs:
		c.atLeast(Ordinary)
		if w.ended {
			c.command(append([]value{lit("bash")}, w.inner...), stdin)
		}
	case len(w.scripts) > 0 && kind != runsArgv:
		// su -c CMD, script -c CMD: the operands are a user or a log file.
		c.atLeast(Ordinary)
	case len(w.inner) == 0 || kind == runsShell:
		if name != "time" && name != "command" && name != "builtin" {
			c.atLeast(Ordinary)
		}
		if w.spec.shell && len(w.scripts) == 0 {
			c.fromStdin(name, stdin) // the user's shell reads the script from stdin
		}
	case kind == runsLine:
		c.commandLine(joinValues(w.inner), name)
	default:
		c.command(w.inner, stdin)
	}
}

// shellPrefix reports the wrappers that are words of the shell itself and
// run a builtin in the current shell (command cd /tmp moves the shell).
func shellPrefix(name string) bool {
	switch name {
	case "command", "builtin", "time", "nocorrect", "noglob":
		return true
	}
	return false
}

// innerDir is the directory a wrapper runs its command in, when it is not
// the wrapper's own ("" when unknown), resolved as cd resolves it: env -C,
// sudo and run0 -D, unshare and nsenter -w, nsenter -W, bwrap --chdir,
// firejail --private-cwd, systemd-run's service directory; chroot and
// unshare -R start in the new root's /, and a login (su -, sudo -i,
// pkexec) in the target user's home (targetHome). A path inside a new root is judged as
// the host's path of the same name, the stricter reading.
func (c *classifier) innerDir(name string, w wrapped) (string, bool) {
	switch name {
	case "env":
		return c.dirOption(w, "-C", "--chdir")
	case "bwrap":
		return c.dirOption(w, "--chdir")
	case "sudo":
		if dir, ok := c.dirOption(w, "-D", "--chdir"); ok {
			return dir, true
		}
		_, login := w.last("-i", "--login")
		return targetHome(w.last("-u", "--user")), login
	case "run0":
		// Without --chdir, the target user's home unless the target is root.
		if dir, ok := c.dirOption(w, "-D", "--chdir"); ok {
			return dir, true
		}
		u, ok := w.last("-u", "--user")
		return "", ok && !(u.v.known && (u.v.s == "root" || u.v.s == "0"))
	case "su", "runuser":
		_, login := w.last("-", "-l", "--login")
		u, ok := w.last("-u", "--user")
		if !ok && len(w.inner) > 0 {
			u, ok = option{v: w.inner[0], valued: true}, true
		}
		return targetHome(u, ok), login
	case "pkexec":
		_, keep := w.last("--keep-cwd")
		return targetHome(w.last("--user")), !keep
	case "chroot":
		_, skip := w.last("--skip-chdir")
		return "/", !skip
	case "unshare":
		if dir, ok := c.dirOption(w, "-w", "--wd"); ok {
			return dir, true
		}
		_, root := w.last("-R", "--root")
		return "/", root
	case "nsenter":
		// -W changes directory inside the namespaces, after -r and -w.
		if dir, ok := c.dirOption(w, "-W", "--wdns", "-w", "--wd"); ok {
			return dir, true
		}
		_, root := w.last("-r", "--root")
		return "/", root
	case "firejail":
		if o, ok := w.last("--private-cwd"); ok && !o.valued {
			return c.env.Home, true
		}
		return c.dirOption(w, "--private-cwd")
	case "systemd-run":
		return c.serviceDir(w)
	}
	return "", false
}

// targetHome is the home directory of the user a wrapper runs its command
// as: root's (/root) when the user option is absent or names root, else
// unknown ("").
func targetHome(u option, given bool) string {
	if !given || u.valued && u.v.known && (u.v.s == "root" || u.v.s == "0" || u.v.s == "#0") {
		return "/root"
	}
	return ""
}

// dirOption is the directory the last of the options names (as cd
// resolves it, "" when unknown), and whether one was given.
func (c *classifier) dirOption(w wrapped, names ...string) (string, bool) {
	o, ok := w.last(names...)
	if !ok {
		return "", false
	}
	return c.dirValue(o.v, o.valued), true
}

// dirValue is the directory cd v would move to, "" when unknown.
func (c *classifier) dirValue(v value, given bool) string {
	if !given || !v.known || v.s == "" {
		return ""
	}
	if d := c.absPath(c.tilde(v.s)); path.IsAbs(d) {
		return d
	}
	return ""
}

// serviceDir is the directory systemd-run's command starts in: a scope
// (--scope) and --same-dir keep the caller's; --working-directory or a
// WorkingDirectory= property names one ("~" the user's home); a service
// otherwise starts in / (the system manager) or the home (--user).
func (c *classifier) serviceDir(w wrapped) (string, bool) {
	if _, ok := w.last("--scope"); ok {
		return "", false
	}
	_, user := w.last("--user")
	for i := len(w.seen) - 1; i >= 0; i-- {
		o := w.seen[i]
		switch {
		case w.is(o, "-d", "--same-dir"):
			return "", false
		case w.is(o, "-D", "--working-directory"):
			return c.serviceDirValue(o.v, o.valued, user), true
		case w.is(o, "-p", "--property") && o.valued:
			if d, ok := strings.CutPrefix(o.v.s, "WorkingDirectory="); ok {
				v := o.v
				v.s = strings.TrimPrefix(d, "-") // "-": a missing directory is no error
				return c.serviceDirValue(v, true, user), true
			}
		}
	}
	if user {
		return c.env.Home, true
	}
	return "/", true
}

func (c *classifier) serviceDirValue(v value, given, user bool) string {
	if v.known && (v.s == "~" || strings.HasPrefix(v.s, "~/")) && !user {
		return "" // the home of the service's user
	}
	return c.dirValue(v, given)
}

// commandLine classifies a shell command line a program runs with sh -c
// (sh -c, script -c, su -c, watch).
func (c *classifier) commandLine(s value, what string) {
	c.atLeast(Ordinary)
	switch {
	case s.download:
		c.flag(Blocked, "runs a downloaded script ("+what+" \"$(curl …)\")")
	case !s.known:
		c.flag(Explicit, what+" runs a script the classifier cannot see ("+s.text()+")")
	default:
		c.nested(s.s, what)
	}
}

// joinValues is the words joined by spaces, as watch and parallel join
// their command before handing it to sh -c.
func joinValues(vs []value) value {
	out := value{known: true, literal: true}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.s
		out.known = out.known && v.known
		out.literal = out.literal && v.literal
		out.download = out.download || v.download
		if !v.known && out.w == nil {
			out.w = v.w
		}
	}
	out.s = strings.Join(parts, " ")
	return out
}

func (c *classifier) envWrapper(assigns []value, printsAll bool) {
	if printsAll {
		c.flag(Explicit, "prints the environment, which holds secrets (env)")
	}
	if len(assigns) > 0 {
		c.pathArgs(assigns, true)
	}
}

// unwrapQuiet strips wrappers without classifying anything, to find what
// actually prints.
func unwrapQuiet(args []value) []value {
	for len(args) > 0 {
		w, ok := splitWrapper(path.Base(args[0].s), args[1:])
		if !ok || w.spec.runs != runsArgv && !w.direct {
			return args
		}
		args = w.inner
	}
	return args
}

func shellName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "toybox", "rbash", "tcsh", "csh":
		return true
	}
	return false
}

// shell classifies sh -c SCRIPT, sh FILE and sh reading a script from a
// pipe or here-document.
func (c *classifier) shell(name string, args []value, stdin *source) {
	c.atLeast(Ordinary)
	if name == "busybox" || name == "toybox" {
		if len(args) == 0 || !shellName(args[0].s) {
			c.command(args, stdin)
			return
		}
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "c"):
			if i+1 >= len(args) {
				return
			}
			if s := args[i+1]; !s.known || s.download {
				c.commandLine(s, name+" -c")
			} else {
				c.nestedWith(s.s, name+" -c", scriptParams(name, args[i+2:]))
			}
			return
		case a.s == "-o" || a.s == "-O" || a.s == "+o" || a.s == "+O":
			i++
		case a.s == "-s" || stdinPath(a.s):
			c.fromStdin(name, stdin)
			return
		case strings.HasPrefix(a.s, "-") || strings.HasPrefix(a.s, "+"):
		case a.proc != nil:
			c.runCode("sh", *a.proc, name)
			return
		default:
			c.scriptFile(a.s, name)
			return
		}
	}
	c.fromStdin(name, stdin)
}

// scriptParams are the positional parameters of sh -c SCRIPT ARGS…: $0 is
// the first argument (else the shell's name); nil when any is unknown.
func scriptParams(shell string, args []value) []string {
	params := []string{shell}
	if len(args) > 0 {
		params = params[:0]
	}
	for _, a := range args {
		if !a.known {
			return nil
		}
		params = append(params, a.s)
	}
	return params
}

// scriptFile classifies a script this command line wrote a moment ago
// (echo '…' > x.sh; sh x.sh); any other file is the project's own work.
func (c *classifier) scriptFile(p, what string) { c.runFile("sh", p, what+" "+p) }

// runFile classifies an interpreter running the file p: a file this
// command line wrote is judged by what it wrote (its text; the file it
// copied; unknown text needs explicit approval), any other by scanFile.
func (c *classifier) runFile(lang, p, what string) {
	abs := c.resolveLinks(c.absPath(p))
	if c.lostFile(abs, what) {
		return
	}
	w, ok := c.files[abs]
	switch {
	case !ok:
		if !c.changedFile(abs, what) {
			c.scanFile(lang, abs, what)
		}
	case w.visible || w.download || w.from != "":
		c.runCode(lang, w.source(), what)
	default:
		c.atLeast(Ordinary)
		c.flag(Explicit, what+" runs a file this command wrote a moment before, whose content the classifier cannot see")
	}
}

// maxScan bounds the script files read for hard blocks.
const maxScan = 64 << 10

// scanFile reads a script file a command runs (sh build.sh, cat x | sh,
// base64 -d < x | sh) and blocks it when the script is itself a hard block.
// Only Blocked carries over: running the project's own scripts is ordinary
// work, whatever else they do.
func (c *classifier) scanFile(lang, p, what string) {
	if c.depth >= maxDepth {
		return
	}
	b, ok := readSmall(p)
	if !ok {
		return
	}
	sub := c.sub()
	if lang == "sh" {
		sub.nested(string(b), what)
	} else {
		sub.code(lang, string(b), what)
	}
	for _, r := range sub.reasons {
		if sub.class == Blocked {
			c.flag(Blocked, what+" runs a script that "+strings.TrimPrefix(r, "inline "))
		}
	}
}

func (c *classifier) fromStdin(what string, stdin *source) {
	if stdin != nil {
		c.runCode("sh", *stdin, what)
	}
}

// runCode classifies code an interpreter runs from a pipe, a
// here-document or a process substitution.
func (c *classifier) runCode(lang string, src source, what string) {
	c.atLeast(Ordinary)
	switch {
	case src.download:
		c.flag(Blocked, "runs a downloaded script (curl … | "+what+")")
	case src.file:
		c.scanFile(lang, src.path, what)
	case !src.visible:
		c.flag(Explicit, "pipes data into "+what+", which runs it as code the classifier cannot see")
	case lang == "sh":
		c.nested(src.text, what)
	default:
		c.code(lang, src.text, what)
	}
}
