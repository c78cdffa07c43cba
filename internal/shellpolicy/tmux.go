package shellpolicy

import "strings"

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
		if flag == 'c' {
			c.commandLine(v, "tmux -c")
		}
	}
	// Commands are separated by a ";" word (written \; or ';').
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

func (c *classifier) tmuxCommand(args []value) {
	if len(args) == 0 {
		return
	}
	sub := args[0].s
	valuedFlags, ok := tmuxRuns[sub]
	if !ok {
		return
	}
	rest := args[1:]
	var ops []value
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
			if strings.Contains(a.s, "C") {
				return // -C: the argument is a tmux command, not a shell command
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
	default:
		c.commandLine(joinValues(ops), "tmux "+sub)
	}
}
