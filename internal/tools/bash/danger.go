package bash

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// BlockedPrefix starts the content of a command refused by the safety
// classifier (tools.md §4.1).
const BlockedPrefix = "BLOCKED: This command was blocked for safety reasons."

// Dangerous returns why command is too destructive to run without the
// posture explicitly auto-approving it; nil means it is not classified
// dangerous. It looks at the parsed command, including subshells, command
// substitutions, function bodies and `sh -c '<literal>'` scripts.
func Dangerous(command string) []string {
	f, err := parseCommand(command)
	if err != nil {
		return nil
	}
	var reasons []string
	add := func(r string) {
		for _, x := range reasons {
			if x == r {
				return
			}
		}
		reasons = append(reasons, r)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, r := range dangerousCall(literalArgs(n)) {
				add(r)
			}
			if interpretsSubstitutedDownload(n) {
				add("runs a downloaded script in an interpreter (sh <(curl …) or sh -c \"$(curl …)\")")
			}
		case *syntax.Redirect:
			if writesTo(n.Op) && isBlockDevice(n.Word.Lit()) {
				add("redirects output onto a disk device (" + n.Word.Lit() + ")")
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && downloads(n.X) && startsInterpreter(n.Y) {
				add("pipes a download straight into an interpreter (curl | sh)")
			}
		case *syntax.FuncDecl:
			if forkBomb(n) {
				add("defines a fork bomb: a function that recursively starts copies of itself in the background")
			}
		}
		return true
	})
	return reasons
}

// BlockedContent is the model-visible refusal for reasons.
func BlockedContent(reasons []string) string {
	var b strings.Builder
	b.WriteString(BlockedPrefix)
	b.WriteString("\n\nReasons:\n")
	for _, r := range reasons {
		b.WriteString("- " + r + "\n")
	}
	b.WriteString("\nNothing was run. Use a narrower, non-destructive command, or ask the user to run this one themselves.")
	return b.String()
}

// literalArgs returns the words of a call as written, quotes removed where
// they are plain literals.
func literalArgs(c *syntax.CallExpr) []string {
	out := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		if lit := w.Lit(); lit != "" {
			out = append(out, lit)
			continue
		}
		out = append(out, unquote(w, wordString(w)))
	}
	return out
}

// wrapper reports whether name runs its arguments as a command; the
// classifier looks through wrappers (sudo rm -rf / is rm -rf /).
func wrapper(name string) bool {
	switch name {
	case "sudo", "doas", "env", "nice", "nohup", "time", "command", "exec", "builtin", "xargs", "timeout", "stdbuf", "ionice":
		return true
	}
	return false
}

// unwrap drops wrapper commands with their options (and timeout's duration,
// env's assignments).
func unwrap(args []string) []string {
	for len(args) > 0 && wrapper(path.Base(args[0])) {
		name := path.Base(args[0])
		args = args[1:]
		for len(args) > 0 && (strings.HasPrefix(args[0], "-") || name == "env" && strings.Contains(args[0], "=")) {
			args = args[1:]
		}
		if name == "timeout" && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// shell reports whether name is an interpreter that runs its arguments as code.
func shell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node":
		return true
	}
	return false
}

func dangerousCall(args []string) []string {
	args = unwrap(args)
	if len(args) == 0 {
		return nil
	}
	name, rest := path.Base(args[0]), args[1:]
	switch {
	case name == "rm":
		return rmReasons(rest)
	case name == "find" && has(rest, "-delete") && len(rest) > 0 && anyRootish(rest[:1]):
		return []string{"deletes everything find matches under a system root (find " + rest[0] + " … -delete)"}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs":
		return []string{"formats or wipes a filesystem (" + name + ")"}
	case name == "dd":
		for _, a := range rest {
			if strings.HasPrefix(a, "of=") && isDevice(a[3:]) {
				return []string{"writes raw data onto a device (dd " + a + ")"}
			}
		}
	case name == "shred":
		for _, a := range operands(rest) {
			if isDevice(a) {
				return []string{"shreds a device (" + a + ")"}
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		if has(rest, "-R", "--recursive") && anyRootish(operands(rest)) {
			return []string{"recursively changes ownership or permissions of a system root (" + name + " -R)"}
		}
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff" ||
		name == "init" && len(rest) > 0 && (rest[0] == "0" || rest[0] == "6") ||
		name == "systemctl" && len(rest) > 0 && (rest[0] == "poweroff" || rest[0] == "reboot" || rest[0] == "halt"):
		return []string{"shuts down or reboots the machine (" + name + ")"}
	case shell(name):
		return scriptReasons(rest)
	}
	return nil
}

// scriptReasons classifies the literal script of `sh -c '<script>'`.
func scriptReasons(args []string) []string {
	for i, a := range args {
		if a == "-c" && i+1 < len(args) {
			return Dangerous(args[i+1])
		}
	}
	return nil
}

func rmReasons(args []string) []string {
	recursive := has(args, "-r", "-R", "--recursive")
	if has(args, "--no-preserve-root") {
		return []string{"deletes with --no-preserve-root"}
	}
	if recursive && anyRootish(operands(args)) {
		return []string{"recursively deletes the filesystem root, a top-level system directory or the home directory (rm -r " +
			strings.Join(operands(args), " ") + ")"}
	}
	return nil
}

func systemDir(p string) bool {
	switch p {
	case "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin",
		"/srv", "/sys", "/usr", "/var", "~", "$HOME", "${HOME}":
		return true
	}
	return false
}

func anyRootish(targets []string) bool {
	for _, t := range targets {
		t = strings.TrimSuffix(strings.TrimSuffix(t, "*"), "/")
		if t == "" || t == "/." || t == "/.." {
			return true
		}
		if systemDir(t) || systemDir(path.Clean(t)) {
			return true
		}
	}
	return false
}

func isDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/random", "/dev/urandom":
		return false
	}
	return strings.HasPrefix(p, "/dev/") && !strings.HasPrefix(p, "/dev/fd/")
}

func isBlockDevice(p string) bool {
	for _, prefix := range []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk", "/dev/mapper/", "/dev/md"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

func writesTo(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
		return true
	}
	return false
}

// downloads reports a statement that calls curl, wget or fetch.
func downloads(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			if args := unwrap(literalArgs(c)); len(args) > 0 {
				switch path.Base(args[0]) {
				case "curl", "wget", "fetch":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// interpretsSubstitutedDownload reports an interpreter call fed by a
// command or process substitution that downloads.
func interpretsSubstitutedDownload(c *syntax.CallExpr) bool {
	args := unwrap(literalArgs(c))
	if len(args) == 0 || !shell(path.Base(args[0])) {
		return false
	}
	found := false
	for _, w := range c.Args[1:] {
		syntax.Walk(w, func(n syntax.Node) bool {
			var stmts []*syntax.Stmt
			switch n := n.(type) {
			case *syntax.CmdSubst:
				stmts = n.Stmts
			case *syntax.ProcSubst:
				stmts = n.Stmts
			}
			for _, s := range stmts {
				found = found || downloads(s)
			}
			return !found
		})
	}
	return found
}

// startsInterpreter reports a statement whose command is a shell or
// script interpreter reading its program from stdin.
func startsInterpreter(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok {
			return startsInterpreter(b.X)
		}
		return false
	}
	args := unwrap(literalArgs(c))
	return len(args) > 0 && shell(path.Base(args[0]))
}

// forkBomb reports a function whose body starts itself in a pipeline or in
// the background (`:(){ :|:& };:`).
func forkBomb(fn *syntax.FuncDecl) bool {
	name := fn.Name.Value
	calls := func(s *syntax.Stmt) bool {
		found := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
				found = true
			}
			return !found
		})
		return found
	}
	bomb := false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			bomb = bomb || n.Background && calls(n)
		case *syntax.BinaryCmd:
			bomb = bomb || (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (calls(n.X) || calls(n.Y))
		}
		return !bomb
	})
	return bomb
}
