package shellpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// tmuxRuns are the tmux commands (and their aliases) that run a shell
// command given as their operands, or type keys into a pane's shell, with
// the flags of each that take a value (tmux(1), tmux 3.3).
var tmuxRuns = map[string]string{
	"new-session": "cefFnstxy", "new": "cefFnstxy",
	"new-window": "ceFnt", "neww": "ceFnt",
	"split-window": "ceFlpt", "splitw": "ceFlpt",
	"respawn-pane": "cet", "respawnp": "cet",
	"respawn-window": "cet", "respawnw": "cet",
	"display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
	"run-shell": "cdt", "run": "cdt",
	"pipe-pane": "t", "pipep": "t",
	"if-shell": "t", "if": "t",
	"send-keys": "Nt", "send": "Nt",
}

// tmux looks through tmux to the shell commands it has a server run: a
// new session's, window's or pane's command, run-shell, a popup, pipe-pane,
// if-shell's test, tmux -c, and the keys send-keys types into a shell. The
// server may be one that started outside the sandbox (the user's own), so
// a hard-blocked command is refused however it reaches it.
func (c *classifier) tmux(args []value) {
	c.atLeast(Ordinary)
	for len(args) > 0 && strings.HasPrefix(args[0].s, "-") && args[0].s != "-" {
		a := args[0]
		args = args[1:]
		if a.s == "--" {
			break
		}
		var v value
		var flag byte
		v, flag, args = bundleValue(a, args, "cfLST")
		switch flag {
		case 'c':
			c.commandLine(v, "tmux -c")
		case 'f':
			c.tmuxFile(v, "tmux -f") // the configuration a server it starts sources
		}
	}
	c.tmuxCommands(args)
}

// tmuxCommands judges tmux commands separated by a ";" word (written \;
// or ';').
func (c *classifier) tmuxCommands(args []value) {
	for len(args) > 0 {
		n := 0
		for n < len(args) && args[n].s != ";" {
			n++
		}
		c.tmuxCommand(args[:n])
		if n == len(args) {
			break
		}
		args = args[n+1:]
	}
}

// bundleValue reads the value of the first flag of a bundle (-vS path,
// -Spath) that is one of valuedFlags, and returns it, that flag (0 when
// none) and the remaining arguments.
func bundleValue(a value, args []value, valuedFlags string) (value, byte, []value) {
	for i := 1; i < len(a.s); i++ {
		f := a.s[i]
		if strings.IndexByte(valuedFlags, f) < 0 {
			continue
		}
		if i+1 < len(a.s) {
			v := a
			v.s = a.s[i+1:]
			return v, f, args
		}
		if len(args) > 0 {
			return args[0], f, args[1:]
		}
		return value{}, f, args
	}
	return value{}, 0, args
}

// tmuxCmds are the tmux commands (and their aliases) whose operands
// include tmux commands the server runs, now or later (when a key is
// pressed, a prompt or menu answered, a hook fires), with the flags of
// each that take a value (tmux(1), tmux 3.3).
var tmuxCmds = map[string]string{
	"if-shell": "t", "if": "t",
	"confirm-before": "cpt", "confirm": "cpt",
	"command-prompt": "IptT",
	"display-menu":   "bcCHsStTxy", "menu": "bcCHsStTxy",
	"bind-key": "NT", "bind": "NT",
	"set-hook":  "t",
	"run-shell": "cdt", "run": "cdt",
	"source-file": "t", "source": "t",
	"set-option": "t", "set": "t",
	"set-window-option": "t", "setw": "t",
}

// tmuxNames are the full names of the commands tmuxRuns and tmuxCmds
// list: tmux takes a unique prefix of one (run-sh, confirm-b).
var tmuxNames = []string{"new-session", "new-window", "split-window", "respawn-pane", "respawn-window",
	"display-popup", "run-shell", "pipe-pane", "if-shell", "send-keys", "confirm-before", "command-prompt",
	"display-menu", "bind-key", "set-hook", "source-file", "set-option", "set-window-option"}

// tmuxName resolves an abbreviated command name to the first of tmuxNames
// it begins (an ambiguous one tmux refuses, so the choice only makes the
// verdict stricter).
func tmuxName(sub string) string {
	if _, ok := tmuxRuns[sub]; ok {
		return sub
	}
	if _, ok := tmuxCmds[sub]; ok || sub == "" {
		return sub
	}
	for _, n := range tmuxNames {
		if strings.HasPrefix(n, sub) {
			return n
		}
	}
	return sub
}

func (c *classifier) tmuxCommand(args []value) {
	if len(args) == 0 {
		return
	}
	for _, a := range args {
		c.tmuxFormats(a)
	}
	sub := tmuxName(args[0].s)
	valuedFlags, runs := tmuxRuns[sub]
	cmdFlags, cmds := tmuxCmds[sub]
	if !runs && !cmds {
		return
	}
	if !runs {
		valuedFlags = cmdFlags
	}
	rest := args[1:]
	var ops []value
	tmuxCommandFlag := false // run-shell -C
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		if a.s == "--" || !strings.HasPrefix(a.s, "-") || a.s == "-" {
			if a.s != "--" {
				ops = append(ops, a)
			}
			ops = append(ops, rest...)
			break
		}
		if sub == "run-shell" || sub == "run" {
			if i := strings.IndexByte(a.s, 'C'); i > 0 && !strings.ContainsAny(a.s[1:i], valuedFlags) {
				tmuxCommandFlag = true // -C: the argument is a tmux command, not a shell command
			}
		}
		_, _, rest = bundleValue(a, rest, valuedFlags)
	}
	if len(ops) == 0 {
		return
	}
	switch sub {
	case "send-keys", "send":
		c.commandLine(joinValues(ops), "tmux send-keys")
	case "if-shell", "if":
		c.commandLine(ops[0], "tmux if-shell")
		for _, o := range ops[1:min(3, len(ops))] {
			c.tmuxString(o, "tmux if-shell")
		}
	case "run-shell", "run":
		if tmuxCommandFlag {
			c.tmuxString(ops[0], "tmux run-shell -C")
		} else {
			c.commandLine(joinValues(ops), "tmux "+sub)
		}
	case "confirm-before", "confirm", "command-prompt":
		c.tmuxString(ops[0], "tmux "+sub)
	case "set-hook":
		if len(ops) > 1 {
			c.tmuxString(ops[1], "tmux set-hook")
		}
	case "source-file", "source":
		if !strings.Contains(flagLetters(args[1:]), "n") { // -n parses the files only
			for _, o := range ops {
				c.tmuxFile(o, "tmux "+sub)
			}
		}
	case "set-option", "set", "set-window-option", "setw":
		if len(ops) > 1 {
			c.tmuxOption(ops[0], ops[1], "tmux "+sub)
		}
	case "bind-key", "bind":
		c.tmuxCommands(ops[1:]) // the command and its arguments, after the key
	case "display-menu", "menu":
		for i := 0; i < len(ops); i++ {
			if ops[i].s == "" {
				continue // a separator
			}
			if i += 2; i < len(ops) {
				c.tmuxString(ops[i], "tmux "+sub) // name key command
			}
		}
	default:
		c.commandLine(joinValues(ops), "tmux "+sub)
	}
}

// tmuxString judges a tmux command given as one argument (if-shell's
// commands, confirm-before's, a menu item's): tmux parses it with quoting
// and ; separators as the shell's, which reads it here.
func (c *classifier) tmuxString(v value, what string) {
	c.atLeast(Ordinary)
	switch {
	case v.download:
		c.flag(Blocked, what+" runs downloaded tmux commands ("+v.text()+")")
		return
	case !v.known:
		c.flag(Explicit, what+" runs tmux commands the classifier cannot see ("+v.text()+")")
		return
	case c.depth >= maxDepth:
		c.flag(Explicit, what+" nests tmux commands too deep to follow")
		return
	}
	f, err := c.parseScript(v.s)
	if err != nil {
		c.flag(Explicit, what+" runs tmux commands the classifier cannot read ("+v.text()+")")
		return
	}
	var words []value
	for _, st := range f.Stmts {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Background || st.Negated {
			c.flag(Explicit, what+" runs tmux commands the classifier cannot read ("+v.text()+")")
			return
		}
		if len(words) > 0 {
			words = append(words, lit(";"))
		}
		for _, w := range call.Args {
			s, ok := literal(w)
			if !ok {
				c.flag(Explicit, what+" runs tmux commands the classifier cannot read ("+v.text()+")")
				return
			}
			words = append(words, lit(s))
		}
	}
	c.depth++
	c.tmuxCommands(words)
	c.depth--
}

// tmuxFormats judges the shell command of each #(…) in a tmux argument:
// tmux expands formats in messages, options (status-right …), menus and
// the arguments of most commands, and #(…) runs its text with the shell
// (## is a literal #).
func (c *classifier) tmuxFormats(v value) {
	s := v.s
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		if s[i+1] == '#' {
			i++
			continue
		}
		if s[i+1] != '(' {
			continue
		}
		depth, j := 1, i+2
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		end := j
		if depth == 0 {
			end = j - 1
		}
		c.commandLine(part(v, s[i+2:end]), "tmux #()")
		i = j - 1
	}
}

// flagLetters are the letters of the flag bundles args starts with.
func flagLetters(args []value) string {
	var b strings.Builder
	for _, a := range args {
		if a.s == "--" || !strings.HasPrefix(a.s, "-") || a.s == "-" {
			break
		}
		b.WriteString(a.s[1:])
	}
	return b.String()
}

// tmuxFile judges a file of tmux commands (source-file, tmux -f) as a
// commandFile: each line as tmux reads a command, \ joining lines; with
// -n source-file only parses it. A name with a glob or a format the
// classifier cannot follow is a file it cannot see.
func (c *classifier) tmuxFile(v value, what string) {
	if v.known && strings.ContainsAny(v.s, "*?[#") {
		v = value{s: v.s}
	}
	what += " " + v.text()
	c.commandFile(v, what, "tmux commands", func(j *classifier, text string) {
		for _, line := range strings.Split(strings.ReplaceAll(text, "\\\n", " "), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == '%' || line == "{" || line == "}" {
				continue
			}
			j.tmuxString(lit(line), what)
		}
	})
}

// tmuxShellOptions are the tmux options whose value is a shell command
// line the server runs later (a new window's command, the lock command,
// copy mode's pipe, the editor); default-shell names the shell program.
var tmuxShellOptions = []string{"default-command", "lock-command", "copy-command", "editor", "default-shell"}

// tmuxOption judges set-option NAME VALUE: a shell command option as the
// command line, a hook (after-…, pane-died …) or command-alias as the tmux
// commands it runs. tmux takes a unique prefix of an option's name and an
// array index after it (command-alias[10]).
func (c *classifier) tmuxOption(name, val value, what string) {
	if !name.known {
		c.flag(Explicit, what+" sets an option the classifier cannot see ("+name.text()+"), which can be a command "+
			"tmux runs (default-command)")
		return
	}
	n, _, _ := strings.Cut(name.s, "[")
	what += " " + n
	for _, o := range tmuxShellOptions {
		if n == "" || !strings.HasPrefix(o, n) {
			continue
		}
		if o == "default-shell" {
			c.namedProgram(what, val, false)
		} else {
			c.commandLine(val, what)
		}
		return
	}
	switch {
	case strings.HasPrefix(n, "command-alias"):
		if _, cmd, ok := strings.Cut(val.s, "="); ok || !val.known {
			c.tmuxString(part(val, cmd), what)
		}
	case tmuxHook(n):
		c.tmuxString(val, what)
	}
}

// tmuxHook reports the name of a hook (tmux(1) "HOOKS"), which set-option
// sets as set-hook does.
func tmuxHook(n string) bool {
	for _, p := range []string{"after-", "alert-", "client-", "pane-died", "pane-exited", "pane-focus-", "pane-mode-",
		"pane-set-clipboard", "pane-title-changed", "session-closed", "session-created", "session-renamed",
		"session-window-changed", "window-layout-changed", "window-linked", "window-pane-changed",
		"window-renamed", "window-resized", "window-unlinked", "command-error"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
