package tasks

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// DangerReasons classifies a gate command. A non-empty result means the
// command would destroy data outside the build, change the machine, escalate
// privileges or run downloaded code, and must not run as a gate. The
// classifier is deliberately small: it parses the command as shell and looks
// at each simple command and pipeline, so quoting and `&&` chains do not
// hide what runs.
func DangerReasons(command string) []string {
	var reasons []string
	add := func(format string, a ...any) {
		r := fmt.Sprintf(format, a...)
		for _, x := range reasons {
			if x == r {
				return
			}
		}
		reasons = append(reasons, r)
	}
	if isForkBomb(command) {
		add("fork bomb")
	}
	file, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return reasons // the shell will reject it too; the gate just fails
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			classifyCall(words(n.Args), add)
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && downloads(n.X) && interprets(n.Y) {
				add("pipes downloaded content into an interpreter")
			}
		case *syntax.Redirect:
			if n.Word != nil && blockDevice().MatchString(wordText(n.Word)) {
				add("writes directly to a block device (%s)", wordText(n.Word))
			}
		}
		return true
	})
	return reasons
}

var (
	forkBomb    = lazyre.New(`([A-Za-z_:][A-Za-z0-9_:]*)\(\)\{([A-Za-z_:][A-Za-z0-9_:]*)\|([A-Za-z_:][A-Za-z0-9_:]*)&`)
	blockDevice = lazyre.New(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk)`)
	// wrappers run their arguments as a command.
	wrappers  = map[string]bool{"env": true, "nohup": true, "time": true, "command": true, "exec": true, "nice": true, "timeout": true, "xargs": true}
	escalates = map[string]bool{"sudo": true, "su": true, "doas": true, "pkexec": true}
	wipers    = map[string]bool{"mkfs": true, "mke2fs": true, "fdisk": true, "sfdisk": true, "parted": true, "wipefs": true, "shred": true}
	powers    = map[string]bool{"shutdown": true, "reboot": true, "halt": true, "poweroff": true}
)

// isForkBomb spots a function that pipes itself into itself in the
// background, the shape of `:(){ :|:& };:`.
func isForkBomb(command string) bool {
	for _, m := range forkBomb().FindAllStringSubmatch(strings.Join(strings.Fields(command), ""), -1) {
		if m[1] == m[2] && m[2] == m[3] {
			return true
		}
	}
	return false
}

// classifyCall inspects one simple command, looking through wrappers such
// as `sudo` and `env`.
func classifyCall(args []string, add func(string, ...any)) {
	for len(args) > 0 {
		name := path.Base(args[0])
		switch {
		case escalates[name]:
			add("privilege escalation (%s)", name)
		case wrappers[name]:
		default:
			classifyProgram(name, args[1:], add)
			return
		}
		args = dropOptions(args[1:])
	}
}

// dropOptions skips a wrapper's flags, VAR=value assignments and numeric()
// operands (`timeout 10`, `nice -n 5`).
func dropOptions(args []string) []string {
	for len(args) > 0 && (strings.HasPrefix(args[0], "-") || strings.Contains(args[0], "=") || numeric().MatchString(args[0])) {
		args = args[1:]
	}
	return args
}

var numeric = lazyre.New(`^[0-9.]+[smhd]?$`)

func classifyProgram(name string, args []string, add func(string, ...any)) {
	switch {
	case name == "rm" && hasFlag(args, 'r', "--recursive"):
		for _, t := range operands(args) {
			if criticalPath(t) {
				add("recursive delete of %s", t)
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		if hasFlag(args, 'R', "--recursive") {
			for _, t := range operands(args) {
				if criticalPath(t) {
					add("recursive %s of %s", name, t)
				}
			}
		}
	case wipers[name] || strings.HasPrefix(name, "mkfs."):
		add("formats or wipes a disk (%s)", name)
	case name == "dd":
		for _, a := range args {
			if strings.HasPrefix(a, "of=/dev/") && a != "of=/dev/null" {
				add("raw write to a device (dd %s)", a)
			}
		}
	case powers[name], name == "init" && len(args) > 0 && (args[0] == "0" || args[0] == "6"),
		name == "systemctl" && len(args) > 0 && (powers[args[0]] || args[0] == "kexec"):
		add("shuts down or reboots the machine (%s)", name)
	case name == "git" && len(args) > 0:
		classifyGit(args, add)
	}
}

func classifyGit(args []string, add func(string, ...any)) {
	sub, rest := args[0], args[1:]
	switch {
	case sub == "push" && (hasFlag(rest, 'f', "--force") || hasFlagPrefix(rest, "--force-with-lease") || plusRefspec(rest)):
		add("force-pushes history (git push --force)")
	case sub == "reset" && hasFlagPrefix(rest, "--hard"):
		add("discards uncommitted work (git reset --hard)")
	case sub == "clean" && hasFlag(rest, 'f', "--force"):
		add("deletes untracked files (git clean -f)")
	}
}

// hasFlag reports a short flag letter in any bundle (-rf) or the long form.
func hasFlag(args []string, short byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == long || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0) {
			return true
		}
	}
	return false
}

func hasFlagPrefix(args []string, prefix string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

func plusRefspec(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "+") {
			return true
		}
	}
	return false
}

// operands are the non-flag arguments.
func operands(args []string) []string {
	var out []string
	flags := true
	for _, a := range args {
		switch {
		case flags && a == "--":
			flags = false
		case flags && strings.HasPrefix(a, "-") && a != "-":
		default:
			out = append(out, a)
		}
	}
	return out
}

func systemDir(name string) bool {
	switch name {
	case "bin", "boot", "dev", "etc", "home", "lib", "lib64", "opt", "proc", "root", "sbin", "srv", "sys", "usr",
		"var", "Users", "System", "Library", "Applications":
		return true
	}
	return false
}

// criticalPath is a root, home, system directory, or whole-directory target
// whose recursive deletion cannot be part of a build.
func criticalPath(t string) bool {
	t = strings.TrimSuffix(strings.TrimSuffix(t, "*"), "/")
	switch t {
	case "", "~", "$HOME", "${HOME}", ".", "..", "$PWD", "${PWD}":
		return true
	}
	if strings.HasPrefix(t, "/") {
		parts := strings.Split(strings.Trim(path.Clean(t), "/"), "/")
		return len(parts) == 1 && (parts[0] == "" || systemDir(parts[0]))
	}
	return false
}

func downloads(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			name := path.Base(wordText(c.Args[0]))
			found = found || name == "curl" || name == "wget" || name == "fetch"
		}
		return !found
	})
	return found
}

func interprets(st *syntax.Stmt) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	args := words(c.Args)
	for len(args) > 1 && (escalates[path.Base(args[0])] || wrappers[path.Base(args[0])]) {
		args = dropOptions(args[1:])
	}
	switch path.Base(args[0]) {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node":
		return true
	}
	return false
}

func words(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = wordText(w)
	}
	return out
}

// wordText renders a word with quotes removed and expansions shown as
// written ($HOME), which is what the rules compare against.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	writeParts(&b, w.Parts)
	return b.String()
}

func writeParts(b *strings.Builder, parts []syntax.WordPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			writeParts(b, p.Parts)
		case *syntax.ParamExp:
			if p.Param != nil {
				b.WriteString("$" + p.Param.Value)
			}
		default:
			b.WriteString("?")
		}
	}
}
