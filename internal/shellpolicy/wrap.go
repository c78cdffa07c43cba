package shellpolicy

import (
	"path"
	"strings"
)

// wrapperSpec says how a command that runs its arguments as a command is
// written: its options that take a value, and how many operands come
// before the command.
type wrapperSpec struct {
	valued []string
	skip   int
}

func wrapperOf(name string) (wrapperSpec, bool) {
	switch name {
	case "nohup", "setsid", "unbuffer", "builtin", "nocorrect", "noglob", "sudo", "doas", "pkexec", "run0", "env", "su":
		return wrapperSpec{valued: privValued(name)}, true
	case "nice":
		return wrapperSpec{valued: []string{"-n", "--adjustment"}}, true
	case "time":
		return wrapperSpec{valued: []string{"-f", "--format", "-o", "--output"}}, true
	case "timeout":
		return wrapperSpec{valued: []string{"-s", "--signal", "-k", "--kill-after"}, skip: 1}, true
	case "stdbuf":
		return wrapperSpec{valued: []string{"-i", "-o", "-e", "--input", "--output", "--error"}}, true
	case "ionice":
		return wrapperSpec{valued: []string{"-c", "-n", "--class", "--classdata"}}, true
	case "chrt", "taskset":
		return wrapperSpec{skip: 1}, true
	case "command", "exec":
		return wrapperSpec{valued: []string{"-a"}}, true
	case "strace", "ltrace":
		return wrapperSpec{valued: []string{"-o", "-e", "-p", "-s", "-u", "-E"}}, true
	case "flock":
		return wrapperSpec{valued: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, skip: 1}, true
	}
	return wrapperSpec{}, false
}

func privValued(name string) []string {
	switch name {
	case "sudo":
		return []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-h", "--host", "-p", "--prompt",
			"-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"}
	case "doas":
		return []string{"-u", "-C"}
	case "pkexec":
		return []string{"--user"}
	case "env":
		return []string{"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}
	}
	return nil
}

// splitWrapper drops a wrapper's options (and env's assignments) and
// returns the command it runs; opts are the options seen.
func splitWrapper(name string, args []value) (inner, opts, assigns []value, ok bool) {
	spec, ok := wrapperOf(name)
	if !ok {
		return nil, nil, nil, false
	}
loop:
	for len(args) > 0 {
		a := args[0].s
		switch {
		case a == "--":
			args = args[1:]
			break loop
		case strings.HasPrefix(a, "-") && len(a) > 1:
			opts = append(opts, args[0])
			args = args[1:]
			if takesValue(a, spec.valued...) && len(args) > 0 {
				opts = append(opts, args[0])
				args = args[1:]
			}
		case name == "env" && strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			assigns = append(assigns, args[0])
			args = args[1:]
		default:
			break loop
		}
	}
	for i := 0; i < spec.skip && len(args) > 0; i++ {
		args = args[1:]
	}
	return args, opts, assigns, true
}

// wrapper classifies a command that runs another (sudo, env, timeout, …)
// and reports whether name was one.
func (c *classifier) wrapper(name string, args []value, stdin *source) bool {
	inner, opts, assigns, ok := splitWrapper(name, args)
	if !ok {
		return false
	}
	switch name {
	case "sudo", "doas", "pkexec", "run0", "su":
		c.flag(Explicit, "runs with raised privileges ("+name+")")
		if name == "su" {
			c.su(args)
			return true
		}
	case "env":
		c.envWrapper(opts, assigns, len(inner) == 0)
	case "command":
		if has(opts, "-v", "-V") {
			return true // prints what a name is
		}
	}
	for _, a := range assigns {
		if n, _, _ := strings.Cut(a.s, "="); riskyVar(n) {
			c.atLeast(Ordinary)
		}
	}
	if len(inner) == 0 {
		if name != "time" && name != "command" && name != "builtin" {
			c.atLeast(Ordinary)
		}
		return true
	}
	c.command(inner, stdin)
	return true
}

// su runs its -c command as another user.
func (c *classifier) su(args []value) {
	for i, a := range args {
		if (a.s == "-c" || a.s == "--command") && i+1 < len(args) {
			c.nested(args[i+1].s, "su -c")
		}
	}
}

func (c *classifier) envWrapper(opts, assigns []value, printsAll bool) {
	for i, o := range opts {
		if (o.s == "-S" || o.s == "--split-string") && i+1 < len(opts) {
			c.nested(opts[i+1].s, "env -S")
		}
	}
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
		inner, _, _, ok := splitWrapper(path.Base(args[0].s), args[1:])
		if !ok {
			return args
		}
		args = inner
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
			s := args[i+1]
			switch {
			case s.download:
				c.flag(Blocked, "runs a downloaded script ("+name+" -c \"$(curl …)\")")
			case !s.known:
				c.flag(Explicit, name+" -c runs a script the classifier cannot see ("+s.text()+")")
			default:
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
func (c *classifier) scriptFile(p, what string) {
	if text, ok := c.files[c.absPath(p)]; ok {
		c.runCode("sh", source{text: text, visible: true}, what+" "+p)
		return
	}
	c.scanFile("sh", c.absPath(p), what+" "+p)
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
	sub := newClassifier(c.env, c.cwd, c.depth+1)
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
