package shellpolicy

import "strings"

// runs is how a wrapper runs what follows its options.
type runs int

const (
	// runsArgv: the operands are a command and its arguments, exec'd
	// (sudo, env, timeout, unshare, setpriv …).
	runsArgv runs = iota
	// runsLine: the operands joined by spaces are one sh -c line (watch).
	runsLine
	// runsShell: the operands are not a command (su's user, script's log
	// file); a script option's value is one, and without one the wrapper
	// starts an interactive shell that reads stdin.
	runsShell
	// runsTemplate: GNU parallel's command template and ::: inputs.
	runsTemplate
	// runsShellArgs: the operands after -- are a shell's arguments
	// (capsh -- -c CMD runs bash -c CMD); without -- nothing runs.
	runsShellArgs
)

// wrapperSpec says how a command that runs another command is written, as
// its own --help and manual give its grammar: its options that take a
// value, and where the command it runs is.
type wrapperSpec struct {
	valued  []string // options that take a value (the next argument, or attached)
	pairs   []string // options that take the next two arguments (bwrap --bind SRC DEST)
	scripts []string // options whose value is a shell command line it runs (script -c, su -c)
	direct  []string // options that make a runsLine or runsShell wrapper exec its operands (watch -x, runuser -u)
	// optional are options whose value is optional and so only attached
	// (nsenter -w/DIR, --wd=DIR; -w alone is the target process's).
	optional []string
	skip     int // operands before the command (timeout's duration, chroot's new root)
	runs     runs
	shell    bool // with no command it starts the user's shell, which reads stdin (unshare, chroot)
	permute  bool // options may follow operands (GNU getopt's default; su, script)
	exact    bool // long options are never abbreviated (bwrap's own parser)
}

// wrapperOf is the one table of commands the classifier looks through to
// the command they run.
func wrapperOf(name string) (wrapperSpec, bool) {
	switch name {
	case "nohup", "setsid", "unbuffer", "builtin", "nocorrect", "noglob", "linux32", "linux64", "firejail":
		return wrapperSpec{}, true
	case "sudo", "doas", "pkexec", "run0", "env", "su", "runuser":
		return privSpec(name), true
	case "nice":
		return wrapperSpec{valued: []string{"-n", "--adjustment"}}, true
	case "time":
		return wrapperSpec{valued: []string{"-f", "--format", "-o", "--output"}}, true
	case "timeout":
		return wrapperSpec{valued: []string{"-s", "--signal", "-k", "--kill-after"}, skip: 1}, true
	case "stdbuf":
		return wrapperSpec{valued: []string{"-i", "-o", "-e", "--input", "--output", "--error"}}, true
	case "ionice":
		return wrapperSpec{valued: []string{"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"}}, true
	case "chrt", "taskset":
		return wrapperSpec{skip: 1}, true
	case "setarch":
		return wrapperSpec{skip: 1}, true
	case "command", "exec":
		return wrapperSpec{valued: []string{"-a"}}, true
	case "strace", "ltrace":
		return wrapperSpec{valued: []string{"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"}}, true
	case "flock":
		return wrapperSpec{valued: []string{"-w", "--timeout", "-E", "--conflict-exit-code"}, skip: 1,
			scripts: []string{"-c", "--command"}}, true
	}
	return namespaceSpec(name)
}

// namespaceSpec covers the wrappers that run a command in other
// namespaces, roots, identities or terminals (util-linux, coreutils,
// procps, GNU parallel, bubblewrap).
func namespaceSpec(name string) (wrapperSpec, bool) {
	switch name {
	case "watch":
		return wrapperSpec{valued: []string{"-n", "--interval", "-q", "--equexit"}, direct: []string{"-x", "--exec"},
			runs: runsLine}, true
	case "script":
		return wrapperSpec{valued: []string{"-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing",
			"-m", "--logging-format", "-E", "--echo", "-o", "--output-limit"}, scripts: []string{"-c", "--command"},
			runs: runsShell, shell: true, permute: true}, true
	case "unshare":
		return wrapperSpec{valued: []string{"-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid",
			"--propagation", "--setgroups", "--monotonic", "--boottime", "--map-user", "--map-group", "--map-users",
			"--map-groups"}, shell: true}, true
	case "setpriv":
		return wrapperSpec{valued: []string{"--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid",
			"--rgid", "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label",
			"--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"}}, true
	case "nsenter":
		return wrapperSpec{valued: []string{"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns"},
			optional: []string{"-r", "--root", "-w", "--wd"}, shell: true}, true
	case "chroot":
		return wrapperSpec{valued: []string{"--groups", "--userspec"}, skip: 1, shell: true}, true
	case "prlimit":
		return wrapperSpec{valued: []string{"-p", "--pid", "-o", "--output"}}, true
	case "fakeroot":
		return wrapperSpec{valued: []string{"-l", "--lib", "-f", "--faked", "-i", "-s", "-b", "--fd-base"}, shell: true}, true
	case "systemd-run":
		return wrapperSpec{valued: []string{"-u", "--unit", "-p", "--property", "--description", "--slice", "-E",
			"--setenv", "--uid", "--gid", "--nice", "-D", "--working-directory", "--on-active", "--on-boot",
			"--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
			"--path-property", "--socket-property", "-H", "--host", "-M", "--machine", "--service-type"}}, true
	case "bwrap":
		return wrapperSpec{valued: []string{"--args", "--argv0", "--uid", "--gid", "--hostname", "--chdir",
			"--unsetenv", "--lock-file", "--sync-fd", "--remount-ro", "--exec-label", "--file-label", "--proc", "--dev",
			"--tmpfs", "--mqueue", "--dir", "--seccomp", "--add-seccomp-fd", "--block-fd", "--userns-block-fd",
			"--info-fd", "--json-status-fd", "--cap-add", "--cap-drop", "--perms", "--size", "--userns", "--userns2",
			"--pidns"}, pairs: []string{"--setenv", "--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind",
			"--ro-bind-try", "--file", "--bind-data", "--ro-bind-data", "--symlink", "--chmod"}, exact: true}, true
	case "parallel", "sem":
		return parallelSpec(), true
	}
	return moreSpec(name)
}

// moreSpec covers the smaller wrappers (moreutils, libeatmydata, faketime,
// numactl, libcgroup, dbus, valgrind, shadow's sg/newgrp, libcap's capsh).
func moreSpec(name string) (wrapperSpec, bool) {
	switch name {
	case "eatmydata", "catchsegv", "chronic", "ifne", "torsocks":
		return wrapperSpec{}, true
	case "proxychains", "proxychains4":
		return wrapperSpec{valued: []string{"-f"}}, true
	case "faketime", "lckdo":
		return wrapperSpec{skip: 1}, true
	case "numactl":
		return wrapperSpec{valued: []string{"-i", "--interleave", "-p", "--preferred", "-m", "--membind", "-N",
			"--cpunodebind", "-C", "--physcpubind", "-w", "--weighted-interleave", "-P", "--preferred-many"}}, true
	case "cgexec":
		return wrapperSpec{valued: []string{"-g"}}, true
	case "dbus-run-session":
		return wrapperSpec{valued: []string{"--dbus-daemon", "--config-file"}}, true
	case "valgrind":
		return wrapperSpec{scripts: []string{"--db-command"}}, true
	case "sg":
		// sg GROUP [-c] COMMAND: /bin/sh -c COMMAND.
		return wrapperSpec{skip: 1, scripts: []string{"-c"}, runs: runsLine}, true
	case "newgrp":
		return wrapperSpec{runs: runsShell, shell: true}, true
	case "capsh":
		return wrapperSpec{runs: runsShellArgs}, true
	}
	return wrapperSpec{}, false
}

func privSpec(name string) wrapperSpec {
	switch name {
	case "sudo":
		return wrapperSpec{valued: []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-h", "--host",
			"-p", "--prompt", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T",
			"--command-timeout", "-R", "--chroot"}}
	case "doas":
		return wrapperSpec{valued: []string{"-u", "-C"}}
	case "pkexec":
		return wrapperSpec{valued: []string{"--user"}}
	case "run0":
		return wrapperSpec{valued: []string{"-u", "--user", "-g", "--group", "-D", "--chdir", "--nice", "--setenv",
			"--unit", "--property", "--description", "--slice", "--machine", "--background"}}
	case "env":
		return wrapperSpec{valued: []string{"-u", "--unset", "-C", "--chdir"}, scripts: []string{"-S", "--split-string"}}
	case "runuser":
		// runuser -u USER CMD… execs; without -u it behaves as su.
		s := privSpec("su")
		s.valued = append(s.valued, "-u", "--user")
		s.direct = []string{"-u", "--user"}
		return s
	}
	return wrapperSpec{valued: []string{"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w",
		"--whitelist-environment"}, scripts: []string{"-c", "--command", "--session-command"}, runs: runsShell,
		shell: true, permute: true}
}

// wrapped is a wrapper's command line taken apart.
type wrapped struct {
	spec    wrapperSpec
	inner   []value // what follows the options (and skipped operands)
	opts    []value // the options seen, values included
	assigns []value // env's NAME=VALUE
	scripts []value // the values of script options
	what    []string
	seen    []option // every option in order, with its value (innerDir)
	direct  bool     // a direct option was seen
	ended   bool     // "--" ended the options
}

// splitWrapper takes a wrapper's command line apart as its getopt does;
// ok is false when name is not a wrapper.
func splitWrapper(name string, args []value) (w wrapped, ok bool) {
	w.spec, ok = wrapperOf(name)
	if !ok {
		return w, false
	}
	args = w.options(name, args)
	for i := 0; i < w.spec.skip && len(args) > 0; i++ {
		args = args[1:]
	}
	// setarch ARCH -R CMD, flock FILE -c CMD: options after the operand.
	if w.spec.skip > 0 {
		args = w.options(name, args)
	}
	if w.spec.permute {
		var rest []value
		for len(args) > 0 && !w.ended {
			rest = append(rest, args[0])
			args = w.options(name, args[1:])
		}
		args = append(rest, args...)
	}
	w.inner = args
	return w, true
}

// options consumes the options at the front of args and returns the rest.
func (w *wrapped) options(name string, args []value) []value {
	for len(args) > 0 {
		a := args[0].s
		switch {
		case a == "--" || name == "capsh" && (a == "-+" || a == "==" || a == "=+"):
			w.ended = true
			return args[1:]
		case a == "-":
			w.opts, args = append(w.opts, args[0]), args[1:] // env -, su -: an empty environment, a login shell
			w.seen = append(w.seen, option{name: a})
		case strings.HasPrefix(a, "--"):
			args = w.longOption(args)
		case strings.HasPrefix(a, "-") && len(a) > 1 && name != "bwrap":
			args = w.shortOptions(args)
		case name == "env" && strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			w.assigns, args = append(w.assigns, args[0]), args[1:]
		default:
			return args
		}
	}
	return args
}

func (w *wrapped) longOption(args []value) []value {
	a := args[0]
	w.opts, args = append(w.opts, a), args[1:]
	name, val, attached := strings.Cut(a.s, "=")
	is := func(names []string) bool {
		if w.spec.exact {
			return valued(name, names...)
		}
		return takesValue(name, names...)
	}
	if is(w.spec.direct) {
		w.direct = true
	}
	n := 0
	switch {
	case is(w.spec.pairs):
		n = 2
	case is(w.spec.valued) || is(w.spec.scripts):
		n = 1
	}
	o := option{name: name}
	if attached && (n > 0 || is(w.spec.optional)) {
		o.v, o.valued = a, true
		o.v.s = val
	} else if n > 0 && len(args) > 0 {
		o.v, o.valued = args[0], true
	}
	w.seen = append(w.seen, o)
	if n > 0 && o.valued {
		w.script(name, o.v)
	}
	if attached && n > 0 {
		n--
	}
	for ; n > 0 && len(args) > 0; n-- {
		w.opts, args = append(w.opts, args[0]), args[1:]
	}
	return args
}

// shortOptions reads a bundle (-qc CMD, -n5): the first letter that takes
// a value takes the rest of the bundle, or else the next argument.
func (w *wrapped) shortOptions(args []value) []value {
	a := args[0]
	w.opts, args = append(w.opts, a), args[1:]
	for i := 1; i < len(a.s); i++ {
		f := "-" + a.s[i:i+1]
		if valued(f, w.spec.direct...) {
			w.direct = true
		}
		o := option{name: f}
		switch {
		case valued(f, w.spec.optional...) && i+1 < len(a.s):
			o.v, o.valued = a, true
			o.v.s = a.s[i+1:]
			w.seen = append(w.seen, o)
			return args
		case !valued(f, w.spec.valued...) && !valued(f, w.spec.scripts...):
			w.seen = append(w.seen, o)
			continue
		}
		if i+1 < len(a.s) {
			o.v, o.valued = a, true
			o.v.s = a.s[i+1:]
			w.seen = append(w.seen, o)
			w.script(f, o.v)
			return args
		}
		if len(args) > 0 {
			o.v, o.valued = args[0], true
			w.script(f, args[0])
			w.opts, args = append(w.opts, args[0]), args[1:]
		}
		w.seen = append(w.seen, o)
		return args
	}
	return args
}

// option is one option a wrapper was given, as written (-C, --chd), and
// its value when it took one.
type option struct {
	name   string
	v      value
	valued bool
}

// last is the last of the options given that is one of names.
func (w *wrapped) last(names ...string) (option, bool) {
	for i := len(w.seen) - 1; i >= 0; i-- {
		if w.is(w.seen[i], names...) {
			return w.seen[i], true
		}
	}
	return option{}, false
}

// is reports an option that is one of names, a long one also by an
// abbreviation unless the wrapper parses them exactly.
func (w *wrapped) is(o option, names ...string) bool {
	for _, n := range names {
		if o.name == n || !w.spec.exact && strings.HasPrefix(n, "--") && abbreviates(o.name, n) {
			return true
		}
	}
	return false
}

// script records v when option f is a script option.
func (w *wrapped) script(f string, v value) {
	if takesValue(f, w.spec.scripts...) {
		w.scripts = append(w.scripts, v)
		w.what = append(w.what, f)
	}
}
