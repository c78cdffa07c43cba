package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// assigned classifies what assigning v to name does beyond setting it: a
// variable that changes what later commands run or load is never
// read-only, and one whose value is a command line (GIT_SSH_COMMAND, PAGER
// …), a prompt (PS4 under set -x) or a startup script (BASH_ENV, ENV) is
// judged by that command, prompt or script, as git or bash will run it.
func (c *classifier) assigned(name string, v value) {
	if riskyVar(name) {
		c.atLeast(Ordinary)
	}
	if c.ints[name] {
		c.arithValue(v)
	}
	switch {
	case commandVar(name):
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			v.s = strings.TrimLeft(v.s, "|-")
		}
		c.commandLine(v, name+"=")
	case name == "GOFLAGS":
		c.goFlagsVar(v, "GOFLAGS")
	case name == "BASH_ENV" || name == "ENV":
		c.startupFile(name, v)
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		if v.known {
			c.promptText(v.s, name)
		} else if v.opaque {
			c.flag(Explicit, "sets "+name+" to a value the classifier cannot see, whose substitutions the shell runs")
		}
	case name == "GIT_EXEC_PATH":
		c.flag(Explicit, "makes git take its commands from "+v.text()+" (GIT_EXEC_PATH=), which runs the programs "+
			"there")
	case gitConfigVar(name):
		c.flag(Explicit, "sets git configuration through the environment ("+name+"), which can make git run a command")
		if v.known && v.s != "" && !strings.HasPrefix(name, "GIT_CONFIG_KEY_") {
			c.scanText("sh", v.s, name+"=")
		}
	case bashTableVar(name):
		c.bashTable(name, v) // BASH_CMDS[NAME]=PATH, BASH_ALIASES[NAME]=TEXT (builtins.go)
	case bashFuncVar(name):
		c.bashFunc(name, v)
	case name == "PYTEST_ADDOPTS":
		c.pytestOptions(v, "PYTEST_ADDOPTS=")
	case name == "PYTEST_PLUGINS":
		switch {
		case v.download:
			c.flag(Blocked, "PYTEST_PLUGINS= names plugins from a download")
		case !v.known:
			c.flag(Explicit, "PYTEST_PLUGINS= names plugins the classifier cannot see ("+v.text()+"), which every "+
				"pytest run loads")
		}
	case makeProgramVar(name) && name != "SHELL":
		// make takes CC, RM … from the environment for its built-in rules
		// (never SHELL), as a build script's own $CC does: what they run
		// carries a hard block over, as the project's own makefile does.
		switch {
		case v.download:
			c.flag(Blocked, "runs a program named by a download ("+name+"=\"$(curl …)\")")
		case v.known && v.s != "":
			c.scanText("sh", v.s, name+"=")
		}
	}
}

// bashTableVar reports BASH_CMDS and BASH_ALIASES, whole or one element
// (printf -v 'BASH_CMDS[ls]').
func bashTableVar(name string) bool {
	return name == "BASH_CMDS" || name == "BASH_ALIASES" || strings.HasPrefix(name, "BASH_CMDS[") ||
		strings.HasPrefix(name, "BASH_ALIASES[")
}

// commandVar reports a variable whose value a program runs as a command.
func commandVar(name string) bool {
	switch name {
	case "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
		"GIT_ASKPASS", "GIT_PROXY_COMMAND", "SSH_ASKPASS", "SUDO_ASKPASS", "PAGER", "MANPAGER", "SYSTEMD_PAGER",
		"EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND", "RSYNC_RSH", "CVS_RSH",
		"FZF_DEFAULT_COMMAND":
		return true
	}
	return false
}

// gitConfigVar reports the variables that hand git configuration
// (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n, a GIT_CONFIG_GLOBAL file other than /dev/null …).
func gitConfigVar(name string) bool {
	return name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" || name == "GIT_CONFIG" ||
		strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// startupFile classifies BASH_ENV=FILE (ENV=FILE for sh): every shell the
// command starts expands the value and runs the file first.
func (c *classifier) startupFile(name string, v value) {
	if v.known && strings.ContainsAny(v.s, "$`") {
		if w, err := c.parser().Document(strings.NewReader(v.s)); err == nil {
			v = c.word(w)
		} else {
			v.known = false
		}
	}
	switch {
	case v.proc != nil:
		c.runCode("sh", *v.proc, name)
	case v.download:
		c.flag(Blocked, "runs a downloaded script ("+name+"=…)")
	case !v.known:
		c.flag(Explicit, name+" names a file the classifier cannot see ("+v.text()+"), which every shell the command "+
			"starts runs first")
	case v.s != "":
		c.runFile("sh", v.s, name+"="+v.s)
	}
}

// scanText carries over a hard block found in text a program will run
// (a git configuration value), as scanFile does for a file.
func (c *classifier) scanText(lang, text, what string) {
	if c.depth >= maxDepth {
		return
	}
	sub := c.sub()
	if lang == "sh" {
		sub.nested(text, what)
	} else {
		sub.code(lang, text, what)
	}
	if sub.class == Blocked {
		for _, r := range sub.reasons {
			c.flag(Blocked, what+" runs a command that "+strings.TrimPrefix(r, "inline "))
		}
	}
}

// arithValue classifies a value assigned to an integer variable
// (declare -i), which bash evaluates as arithmetic.
func (c *classifier) arithValue(v value) {
	switch {
	case v.known:
		c.arithText(v.s, map[string]bool{})
	case v.opaque:
		c.flag(Explicit, "assigns a value the classifier cannot see to an integer variable, which evaluates it as "+
			"arithmetic (and can run commands through an array subscript)")
	}
}

// prefixVar reports an assignment before a command that the command's
// own rules read (the repository git uses, the configuration curl reads).
func prefixVar(name string) bool {
	switch name {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "CURL_HOME", "XDG_CONFIG_HOME", "HOME",
		"MAKEFILES", "PATH":
		return true
	}
	return false
}

// riskyVar reports a variable that changes what later commands run or
// load, so assigning it is never read-only.
func riskyVar(name string) bool {
	switch name {
	case "PATH", "IFS", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "SHELLOPTS", "BASHOPTS",
		"CDPATH", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL", "GCONV_PATH", "PYTHONSTARTUP",
		"PYTHONPATH", "PYTHONHOME", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "RUBYOPT", "HOME", "BASH_XTRACEFD",
		"MAKEFLAGS", "MAKEFILES", "CURL_HOME", "WGETRC", "GOFLAGS", "GOENV", "GOTOOLCHAIN", "ACKRC", "TAR_OPTIONS",
		"GREP_OPTIONS", "SSH_ASKPASS", "SUDO_ASKPASS", "BROWSER", "SYSTEMD_PAGER", "PYTEST_ADDOPTS", "PYTEST_PLUGINS":
		return true
	}
	return strings.HasPrefix(name, "LD_") || bashTableVar(name) || strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "GIT_") ||
		strings.Contains(name, "CONFIG") || commandVar(name)
}

// decl classifies declare/export/local/readonly/typeset: the names it is
// given (a subscript in one is evaluated), namerefs, integer variables and
// the values assigned.
func (c *classifier) decl(d *syntax.DeclClause) {
	var names, opts []string
	vals := make([]value, len(d.Args))
	for i, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			vals[i] = c.word(a.Value)
			if s := vals[i].s; strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
				opts = append(opts, s)
			}
			continue
		}
		vals[i] = c.assignValue(a)
	}
	nameref := d.Variant.Value == "nameref" || declFlag(opts, 'n') && d.Variant.Value != "export"
	integer := declFlag(opts, 'i')
	for i, a := range d.Args {
		v := vals[i]
		if a.Name == nil {
			if a.Naked && a.Value != nil && !strings.HasPrefix(v.s, "-") && !strings.HasPrefix(v.s, "+") {
				// declare "NAME=VALUE" built at run time: the name may carry a subscript.
				n, val, _ := strings.Cut(v.s, "=")
				c.varRef(value{s: n, known: v.known, opaque: v.opaque, w: v.w}, d.Variant.Value)
				fv := v
				fv.s, fv.w = val, nil
				switch {
				case bashFuncVar(n): // bash 5.2 refuses the name, but it is judged as the function it would import
					c.bashFunc(n, fv)
				case strings.Contains(n, "[") && bashTableVar(n): // declare 'BASH_CMDS[ls]=/bin/rm'
					c.bashTable(n, fv)
				}
				c.atLeast(Ordinary)
				names = append(names, n)
			}
			continue
		}
		names = append(names, a.Name.Value)
		if nameref {
			c.nameref(a.Name.Value, v, a.Naked)
			continue
		}
		name := c.resolveRef(a.Name.Value)
		if integer {
			c.ints = set(c.ints, name, true)
			c.atLeast(Ordinary)
		}
		if a.Naked {
			if riskyVar(name) {
				c.atLeast(Ordinary)
			}
			continue
		}
		c.assigned(name, v)
		c.setVar(name, v)
	}
	c.declPrints(d, names, opts)
}

func (c *classifier) declPrints(d *syntax.DeclClause, names, opts []string) {
	functionsOnly := len(opts) > 0
	for _, o := range opts {
		functionsOnly = functionsOnly && (o == "-f" || o == "-F")
	}
	if len(names) == 0 && !functionsOnly {
		c.flag(Explicit, "prints shell variables, which can hold secrets ("+d.Variant.Value+" "+strings.Join(opts, " ")+")")
	}
	for _, n := range names {
		if c.secretVar(n) && declFlag(opts, 'p') {
			c.flag(Explicit, "prints $"+n+", which holds a secret")
		}
	}
}

// nameref records declare -n NAME=TARGET: NAME stands for TARGET from here
// on, in expansions and assignments alike.
func (c *classifier) nameref(name string, target value, naked bool) {
	c.atLeast(Ordinary)
	switch {
	case naked:
		c.flag(Explicit, "declares $"+name+" a nameref without a target, so what it refers to cannot be seen (declare -n)")
	case !target.known:
		c.flag(Explicit, "makes $"+name+" refer to a variable the classifier cannot see (declare -n "+name+"="+target.text()+")")
	default:
		c.varRef(target, "declare -n")
		c.refs = set(c.refs, name, target.s)
		delete(c.vars, name)
		delete(c.opaque, name)
	}
}

// declFlag reports whether any option word sets letter (-n, -rn …).
func declFlag(opts []string, letter byte) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "-") && strings.IndexByte(o[1:], letter) >= 0 {
			return true
		}
	}
	return false
}
