package shellpolicy

import (
	"path"
	"regexp"
	"strings"
)

// Many programs take an option whose value is a command they run: tar
// --to-command, rsync -e, ssh -o ProxyCommand, man -P, vim -c '!…', gdb -ex
// 'shell …', sqlite3 .shell, socat EXEC:, cmake -E rm, screen CMD, at and
// crontab reading a script, and so on. Such a value is judged as the command
// it is, as goFlags does go's: a shell command line with commandLine, a
// program with its arguments with namedProgram, a value the classifier
// cannot see needs explicit approval and one from a download is refused.
// Each grammar is the program's own (its --help and manual page); an
// ambiguous abbreviation or a value the program would refuse costs only a
// stricter verdict.

// runners classifies the options of name that run a command.
func (c *classifier) runners(name string, args []value, stdin *source) {
	switch name {
	case "tar", "gtar", "bsdtar":
		c.tarRuns(args)
	case "zip":
		c.zipRuns(args)
	case "split":
		c.gnuRuns(args, "split", []string{"filter", "additional-suffix", "suffix-length", "bytes", "line-bytes",
			"lines", "number", "separator"}, "alnbpt", map[string]runKind{"filter": runLine})
	case "sort":
		c.gnuRuns(args, "sort", []string{"compress-program", "files0-from", "key", "output", "buffer-size",
			"field-separator", "temporary-directory", "parallel", "batch-size", "sort", "random-source"}, "kotST",
			map[string]runKind{"compress-program": runArgv})
	case "rsync":
		c.rsyncRuns(args)
	case "ssh", "scp", "sftp":
		c.sshRuns(name, args, stdin)
	case "man":
		c.gnuRuns(args, "man", []string{"pager", "html", "config-file", "manpath", "systems", "sections",
			"extension", "preprocessor", "prompt", "encoding", "locale", "troff-device", "recode"}, "CMmSsepPrTRLE",
			map[string]runKind{"pager": runLine, "P": runLine, "html": runLine})
	case "less":
		c.lessRuns(name, args)
	case "vim", "vi", "ex", "nvim", "view", "vimdiff", "gvim", "rvim", "evim", "nvi", "elvis":
		c.vimRuns(name, args)
	case "emacs", "emacsclient":
		c.emacsRuns(name, args)
	case "gdb", "gdb-multiarch", "cgdb":
		c.gdbRuns(name, args)
	case "lldb":
		c.lldbRuns(args)
	case "sqlite3", "sqlite":
		c.sqliteRuns(name, args, stdin)
	case "psql":
		c.psqlRuns(args, stdin)
	case "mysql", "mariadb":
		c.mysqlRuns(name, args, stdin)
	case "expect":
		c.expectRuns(args)
	case "socat":
		c.socatRuns(args)
	case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd":
		c.ncRuns(name, args)
	case "cmake":
		c.cmakeRuns(args)
	case "screen":
		c.screenRuns(args)
	case "at", "batch":
		c.atRuns(name, args, stdin)
	case "crontab":
		c.crontabRuns(args, stdin)
	case "docker", "podman", "nerdctl":
		c.containerRuns(name, args)
	}
}

// runKind is how a program runs an option's value.
type runKind int

const (
	runNone runKind = iota
	runLine         // a shell command line (sh -c VALUE)
	runArgv         // a program and its arguments, split on blanks
)

// run judges v, the value of option what, as the kind of command it is.
func (c *classifier) run(kind runKind, v value, what string) {
	switch kind {
	case runLine:
		c.commandLine(v, what)
	case runArgv:
		c.namedProgram(what, v, true)
	}
}

// part is v with its string replaced by s (a part of it): what the classifier
// knows of v holds for the part.
func part(v value, s string) value {
	v.s = s
	return v
}

// longMatch is the long option (without --) among names that a (the
// argument without its leading dashes, before any =) names exactly or, as
// getopt_long allows, by a prefix.
func longMatch(a string, names []string) (string, bool) {
	for _, n := range names {
		if a == n {
			return n, true
		}
	}
	if len(a) < 2 {
		return "", false
	}
	for _, n := range names {
		if strings.HasPrefix(n, a) {
			return n, true
		}
	}
	return "", false
}

// gnuRuns walks a getopt_long command line: short options in bundles whose
// letters in valuedShort take a value (attached or the next argument), long
// options with =VALUE or the next argument, abbreviated or not, options
// anywhere before "--". runs names the options (short ones by their letter,
// long ones by their name) whose values are commands.
func (c *classifier) gnuRuns(args []value, prog string, valuedLong []string, valuedShort string,
	runs map[string]runKind) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return
		case strings.HasPrefix(a.s, "--"):
			name, val, attached := strings.Cut(a.s[2:], "=")
			n, ok := longMatch(name, valuedLong)
			if !ok {
				continue
			}
			if !attached && n == "html" {
				continue // man --html's browser is optional, so only ever attached
			}
			v, ok := optionValue(args, &i, a, val, attached)
			if !ok {
				continue
			}
			c.run(runs[n], v, prog+" --"+n)
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			v, f, rest := bundleValue(a, args[i+1:], valuedShort)
			i = len(args) - len(rest) - 1
			if f == 0 || !v.known && v.s == "" && v.w == nil {
				continue // no value: the program refuses the option
			}
			c.run(runs[string(f)], v, prog+" -"+string(f))
		}
	}
}

// tarRuns: GNU tar runs --to-command, --checkpoint-action=exec=, -F/
// --info-script/--new-volume-script with sh -c, and -I/
// --use-compress-program (split into words) and --rsh-command/
// --rmt-command as programs (a program's name is split into words like the
// others, which costs only a stricter verdict). tar's first argument may be old-style
// letters without a dash, whose values follow in order (tar xIf prog a).
func (c *classifier) tarRuns(args []value) {
	const valued = "bCfFgHIKLNTVX"
	runs := map[string]runKind{
		"to-command": runLine, "info-script": runLine, "new-volume-script": runLine, "F": runLine,
		"use-compress-program": runArgv, "I": runArgv, "rsh-command": runArgv, "rmt-command": runArgv,
	}
	if len(args) > 0 && args[0].known && args[0].s != "" && !strings.HasPrefix(args[0].s, "-") &&
		strings.Trim(args[0].s, "AabcCdfFgGhiIjJkKlLmMnNoOpPrRsStTuUvVwWxXzZ") == "" {
		letters, rest := args[0].s, args[1:]
		n := 0
		for _, l := range []byte(letters) {
			if strings.IndexByte(valued, l) < 0 || n >= len(rest) {
				continue
			}
			c.run(runs[string(l)], rest[n], "tar "+string(l))
			n++
		}
		args = rest[n:]
	}
	longs := []string{"to-command", "info-script", "new-volume-script", "use-compress-program", "rsh-command",
		"rmt-command", "checkpoint-action", "file", "directory", "files-from", "exclude-from", "listed-incremental",
		"format", "starting-file", "newer", "after-date", "tape-length", "label", "exclude", "transform", "xform",
		"owner", "group", "mode", "mtime", "blocking-factor", "record-size", "suffix", "volno-file", "checkpoint",
		"index-file", "occurrence", "strip-components", "backup", "quoting-style", "hole-detection", "exclude-tag",
		"exclude-tag-under", "exclude-tag-all", "owner-map", "group-map", "pax-option", "sparse-version",
		"atime-preserve", "warning", "level", "clamp-mtime"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.s, "--") || a.s == "--" {
			continue
		}
		name, val, attached := strings.Cut(a.s[2:], "=")
		n, ok := longMatch(name, longs)
		if !ok || !attached && (n == "checkpoint" || n == "backup" || n == "atime-preserve" ||
			n == "occurrence" || n == "sparse-version" || n == "hole-detection") {
			continue // optional values, only ever attached
		}
		v, ok := optionValue(args, &i, a, val, attached)
		if !ok {
			continue
		}
		if n == "checkpoint-action" {
			switch {
			case strings.HasPrefix(v.s, "exec="):
				c.commandLine(part(v, v.s[len("exec="):]), "tar --checkpoint-action=exec")
			case !v.known:
				c.flag(Explicit, "tar --checkpoint-action takes an action the classifier cannot see ("+v.text()+
					"), which can be exec=COMMAND")
			}
			continue
		}
		c.run(runs[n], v, "tar --"+n)
	}
	c.gnuRuns(dashed(args), "tar", nil, valued, runs)
}

// dashed is args without the long options, for gnuRuns' short bundles.
func dashed(args []value) []value {
	var out []value
	for _, a := range args {
		if a.s == "--" {
			break
		}
		if !strings.HasPrefix(a.s, "--") {
			out = append(out, a)
		}
	}
	return out
}

// zipRuns: zip -TT CMD (--unzip-command) tests the archive with CMD, run by
// the shell with the archive's name appended.
func (c *classifier) zipRuns(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v value
		switch {
		case a.s == "-TT" || a.s == "--unzip-command" || a.s == "--unzip-comman" || a.s == "--unzip-comm":
			if i+1 >= len(args) {
				return
			}
			i++
			v = args[i]
		case strings.HasPrefix(a.s, "-TT="):
			v = part(a, a.s[4:])
		case strings.HasPrefix(a.s, "--unzip-command="):
			v = part(a, a.s[len("--unzip-command="):])
		case strings.HasPrefix(a.s, "-TT") && len(a.s) > 3:
			v = part(a, a.s[3:])
		default:
			continue
		}
		c.commandLine(v, "zip -TT")
	}
}

// rsyncRuns: rsync -e/--rsh runs the remote shell locally (rsync splits it
// into words), and --rsync-path is a command line the remote shell runs.
func (c *classifier) rsyncRuns(args []value) {
	c.gnuRuns(args, "rsync", []string{"rsh", "rsync-path", "filter", "exclude", "include", "exclude-from",
		"include-from", "files-from", "temp-dir", "block-size", "remote-option", "partial-dir", "log-file",
		"backup-dir", "suffix", "compare-dest", "copy-dest", "link-dest", "chown", "chmod", "usermap", "groupmap",
		"password-file", "out-format", "log-file-format", "bwlimit", "max-size", "min-size", "timeout", "port",
		"sockopts", "outbuf", "info", "debug", "stderr", "modify-window", "iconv", "checksum-choice", "compress-choice",
		"compress-level", "skip-compress", "max-delete", "max-alloc", "contimeout", "protocol", "checksum-seed",
		"write-batch", "only-write-batch", "read-batch", "stop-after", "stop-at", "early-input", "copy-as"}, "efBTM@",
		map[string]runKind{"rsh": runLine, "e": runLine, "rsync-path": runLine})
}

// sshOptions are the ssh_config keywords whose value is a command line run
// locally through the user's shell (ssh_config(5)).
var sshCommandKeys = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true}

// sshRuns walks OpenSSH's getopt command line: ssh reads options before
// and after the destination (up to the remote command); scp and sftp stop
// at their first operand. ssh -o KEY=VALUE (or "KEY VALUE", the key in any
// case) with ProxyCommand, LocalCommand or KnownHostsCommand runs VALUE on
// this machine; scp and sftp take -o for the ssh they start, -S names that
// ssh program and -D a local sftp server program. -F names a configuration
// file, which can set those keywords (sshConfigFile), and sftp -b a batch
// file, whose !CMD lines run here (sftpBatch; -b - reads stdin).
func (c *classifier) sshRuns(name string, args []value, stdin *source) {
	valued := map[string]string{
		"ssh":  "BbcDEeFIiJLlmOoPpQRSWw",
		"scp":  "cDFiJloPSX",
		"sftp": "BbcDFiJloPRSsX",
	}[name]
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return
		}
		if !strings.HasPrefix(a.s, "-") || len(a.s) < 2 {
			if operands++; name != "ssh" || operands > 1 {
				return // the remote command, or scp's and sftp's operands
			}
			continue
		}
		v, f, rest := bundleValue(a, args[i+1:], valued)
		if f == 0 {
			continue
		}
		i = len(args) - len(rest) - 1
		what := name + " -" + string(f)
		switch {
		case f == 'o':
			c.sshOption(v, what)
		case (f == 'S' || f == 'D') && name != "ssh":
			c.namedProgram(what, v, true) // -S is exec'd unsplit: splitting costs only a stricter verdict
		case f == 'F':
			c.sshConfigFile(v, what)
		case f == 'b' && name == "sftp" && v.known && v.s == "-":
			if text, ok := c.stdinText(stdin, "sftp -b -", "batch commands"); ok {
				c.sftpBatch(lit(""), text)
			}
		case f == 'b' && name == "sftp":
			c.commandFile(v, what, "batch commands", func(j *classifier, text string) { j.sftpBatch(v, text) })
		}
	}
}

// sshOption judges an ssh -o option, "Key=Value" or "Key Value".
func (c *classifier) sshOption(v value, what string) {
	s := strings.TrimLeft(v.s, " \t")
	end := strings.IndexAny(s, " \t=")
	if end < 0 {
		end = len(s)
	}
	key := strings.ToLower(s[:end])
	if strings.ContainsAny(key, "$`") || key == "" && !v.known {
		c.flag(Explicit, what+" sets an option the classifier cannot see ("+v.text()+"), which can be a command "+
			"ssh runs (ProxyCommand)")
		return
	}
	if !sshCommandKeys[key] {
		return
	}
	val := strings.TrimLeft(s[end:], " \t")
	val = strings.TrimLeft(strings.TrimPrefix(val, "="), " \t")
	if strings.EqualFold(val, "none") {
		return
	}
	c.commandLine(part(v, val), what+" "+s[:end])
}

// lessRuns: less +CMD (and ++CMD) runs a less command when a file opens;
// +!CMD is the shell escape, and +|… pipes to a shell command.
func (c *classifier) lessRuns(name string, args []value) {
	for _, a := range args {
		if a.s == "--" {
			return
		}
		s, ok := strings.CutPrefix(a.s, "+")
		if !ok {
			continue
		}
		s = strings.TrimPrefix(s, "+")
		switch {
		case strings.HasPrefix(s, "!"):
			c.commandLine(part(a, s[1:]), name+" +!")
		case strings.HasPrefix(s, "|") && len(s) > 1:
			c.commandLine(part(a, s[2:]), name+" +|")
		case !a.known && strings.ContainsAny(a.text(), "$`"):
			c.flag(Explicit, name+" + runs a less command the classifier cannot see ("+a.text()+"), which can be a "+
				"shell escape")
		}
	}
}

// vimRuns: vim -c CMD, +CMD and --cmd CMD run Ex commands; those that run a
// shell command (:!CMD, :r !CMD, :w !CMD, :{range}!CMD, system(…),
// :terminal CMD, :python …) are judged as it. -S FILE (Session.vim when
// no file follows) and -u VIMRC source a file of Ex commands, -s FILE
// types a file of keys (its : and ! commands run); each is a commandFile.
func (c *classifier) vimRuns(name string, args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return
		case a.s == "-S" || a.s == "-u" || a.s == "-s":
			var f value
			switch {
			case i+1 < len(args) && !strings.HasPrefix(args[i+1].s, "-"):
				i++
				f = args[i]
			case a.s == "-S":
				f = lit("Session.vim")
			default:
				continue
			}
			if a.s == "-u" && f.known && (f.s == "NONE" || f.s == "NORC" || f.s == "DEFAULTS") {
				continue
			}
			what := name + " " + a.s + " " + f.text()
			keys := a.s == "-s"
			c.commandFile(f, what, "editor commands", func(j *classifier, text string) { j.vimFile(text, what, keys) })
		case a.s == "-c" || a.s == "--cmd":
			if i+1 >= len(args) {
				return
			}
			i++
			c.vimCommand(args[i], name+" "+a.s)
		case strings.HasPrefix(a.s, "+") && len(a.s) > 1:
			c.vimCommand(part(a, a.s[1:]), name+" +")
		}
	}
}

var (
	vimRange   = regexp.MustCompile(`^(?:[0-9.,$%;+\- ]|'[a-zA-Z<>])*`)
	vimRead    = regexp.MustCompile(`^(?:r|re|rea|read)\s*!`)
	vimWrite   = regexp.MustCompile(`^(?:w|wr|wri|writ|write)\s+!`)
	vimLang    = regexp.MustCompile(`^(?:py|pyt|pyth|pytho|python|py3|python3|pyx|pythonx|lua|perl|pe|ruby|rub)\s+`)
	vimTerm    = regexp.MustCompile(`^(?:ter|term|termi|termin|termina|terminal)(?:\s+\+\+\S+)*\s+`)
	vimFuncRun = regexp.MustCompile(`\b(?:system|systemlist|job_start|jobstart|term_start|termopen)\s*\(\s*`)
	vimExec    = regexp.MustCompile(`^(?:exe|exec|execute)\s+`)
)

// vimCommand judges one -c/+ value: Ex commands separated by |, but for a
// shell command, which takes the rest of the line.
func (c *classifier) vimCommand(v value, what string) {
	c.atLeast(Ordinary)
	if !v.known {
		if v.download {
			c.flag(Blocked, what+" runs a command from a download")
		} else {
			c.flag(Explicit, what+" runs an editor command the classifier cannot see ("+v.text()+"), which can run a "+
				"shell command")
		}
		return
	}
	s := v.s
	for s != "" {
		s = strings.TrimLeft(s, " \t:")
		s = strings.TrimLeft(s[len(vimRange.FindString(s)):], " \t")
		for _, m := range []string{"silent!", "silent", "sil!", "sil", "keepalt", "noautocmd", "noa"} {
			if rest, ok := strings.CutPrefix(s, m+" "); ok {
				s = strings.TrimLeft(rest, " \t")
			}
		}
		switch {
		case strings.HasPrefix(s, "!"):
			c.commandLine(part(v, s[1:]), what+" !")
			return
		case vimRead.MatchString(s):
			c.commandLine(part(v, s[len(vimRead.FindString(s)):]), what+" :read !")
			return
		case vimWrite.MatchString(s):
			c.commandLine(part(v, s[len(vimWrite.FindString(s)):]), what+" :write !")
			return
		case vimTerm.MatchString(s):
			c.commandLine(part(v, s[len(vimTerm.FindString(s)):]), what+" :terminal")
			return
		case vimLang.MatchString(s):
			l := strings.TrimSpace(vimLang.FindString(s))
			code := s[len(vimLang.FindString(s)):]
			switch {
			case strings.HasPrefix(l, "py"):
				c.code("python", code, what+" :"+l)
			case l == "lua":
				c.code("lua", code, what+" :lua")
			case strings.HasPrefix(l, "pe"):
				c.code("perl", code, what+" :perl")
			default:
				c.code("ruby", code, what+" :ruby")
			}
			return
		case vimExec.MatchString(s):
			arg := strings.TrimSpace(s[len(vimExec.FindString(s)):])
			if str, n, ok := vimString(arg); ok && n == len(arg) {
				c.vimCommand(part(v, str), what+" :execute")
			} else {
				c.flag(Explicit, what+" :execute builds an editor command the classifier does not follow ("+arg+")")
			}
			return
		}
		cmd, rest, bar := strings.Cut(s, "|")
		if loc := vimFuncRun.FindStringIndex(cmd); loc != nil {
			arg := cmd[loc[1]:]
			if str, _, ok := vimString(arg); ok {
				c.commandLine(part(v, str), what+" system()")
			} else {
				c.flag(Explicit, what+" runs a shell command the classifier cannot see ("+strings.TrimSpace(cmd)+")")
			}
		}
		if !bar {
			return
		}
		s = rest
	}
}

// vimString is the string literal s starts with ('…', a quote doubled inside,
// or "…" with backslash escapes) and its length in s.
func vimString(s string) (string, int, bool) {
	if len(s) < 2 {
		return "", 0, false
	}
	switch s[0] {
	case '\'':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), i + 1, true
			}
			b.WriteByte(s[i])
		}
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case '"':
				return b.String(), i + 1, true
			default:
				b.WriteByte(s[i])
			}
		}
	}
	return "", 0, false
}

var (
	elispShell   = regexp.MustCompile(`^\(\s*(?:shell-command|async-shell-command|shell-command-to-string)\s+"((?:[^"\\]|\\.)*)"\s*\)$`)
	elispProcess = regexp.MustCompile(`^\(\s*(?:call-process|process-lines)\s+((?:"(?:[^"\\]|\\.)*"|nil|t|\s)+)\)$`)
	elispString  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// emacsRuns: emacs --eval EXPR runs Lisp, which can do anything; a lone
// (shell-command "…") or (call-process "prog" nil nil nil "arg"…) of
// literal strings is judged as the command, any other expression needs
// explicit approval. -l FILE loads the project's own Lisp, as python
// FILE runs its Python.
func (c *classifier) emacsRuns(name string, args []value) {
	c.atLeast(Ordinary)
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v value
		switch {
		case a.s == "--":
			return
		case a.s == "--eval" || a.s == "-eval":
			if i+1 >= len(args) {
				return
			}
			i++
			v = args[i]
		case strings.HasPrefix(a.s, "--eval="):
			v = part(a, a.s[len("--eval="):])
		default:
			continue
		}
		what := name + " --eval"
		expr := strings.TrimSpace(v.s)
		switch {
		case v.download:
			c.flag(Blocked, what+" runs Lisp from a download")
		case !v.known:
			c.flag(Explicit, what+" runs Lisp the classifier cannot see ("+v.text()+")")
		case elispShell.MatchString(expr):
			c.commandLine(part(v, elispUnquote(elispShell.FindStringSubmatch(expr)[1])), what+" shell-command")
		case elispProcess.MatchString(expr):
			ms := elispString.FindAllStringSubmatch(elispProcess.FindStringSubmatch(expr)[1], -1)
			if len(ms) == 0 {
				continue
			}
			argv := make([]value, len(ms))
			for j, m := range ms {
				argv[j] = lit(elispUnquote(m[1]))
			}
			c.command(argv, nil)
		default:
			c.flag(Explicit, what+" runs Lisp, which can run any command ("+v.text()+")")
		}
	}
}

func elispUnquote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// gdbRuns: gdb -ex/-iex/--eval-command run gdb commands and -x/-ix/
// --command read them from a file; "shell CMD", "!CMD", "pipe … | CMD" run
// a shell command and "python …" Python.
func (c *classifier) gdbRuns(name string, args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" || a.s == "--args" || a.s == "-args" {
			return
		}
		if !strings.HasPrefix(a.s, "-") {
			continue
		}
		opt, val, attached := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a.s, "-"), "-"), "=")
		var file bool
		switch opt {
		case "ex", "eval-command", "iex", "init-eval-command":
		case "x", "command", "ix", "init-command":
			file = true
		default:
			continue
		}
		v, ok := optionValue(args, &i, a, val, attached)
		if !ok {
			return
		}
		what := name + " -" + opt
		if !file {
			c.gdbCommand(v, what)
			continue
		}
		if text, ok := c.scriptText(v, what, "gdb commands"); ok {
			for _, line := range strings.Split(text, "\n") {
				c.gdbCommand(lit(line), what+" "+v.s)
			}
		}
	}
}

var gdbPython = regexp.MustCompile(`^(?:python|py|pi|python-interactive)\s+`)

func (c *classifier) gdbCommand(v value, what string) {
	c.atLeast(Ordinary)
	if !v.known {
		c.commandLine(v, what) // Explicit, or Blocked for a download
		return
	}
	s := strings.TrimSpace(v.s)
	switch {
	case strings.HasPrefix(s, "!"):
		c.commandLine(part(v, s[1:]), what+" !")
	case s == "shell" || strings.HasPrefix(s, "shell ") || strings.HasPrefix(s, "shell\t"):
		c.commandLine(part(v, s[len("shell"):]), what+" shell")
	case strings.HasPrefix(s, "|") || strings.HasPrefix(s, "pipe ") || strings.HasPrefix(s, "pipe\t"):
		rest := strings.TrimPrefix(strings.TrimPrefix(s, "pipe"), "|")
		if _, cmd, ok := strings.Cut(rest, "|"); ok {
			c.commandLine(part(v, cmd), what+" pipe")
		}
	case gdbPython.MatchString(s):
		c.code("python", s[len(gdbPython.FindString(s)):], what+" python")
	}
}

// lldbRuns: lldb -o/-O/-k/-K run lldb commands and -s/-S source them from
// a file; "platform shell [-- ]CMD" and "shell CMD" run a shell command and
// "script …" Python.
func (c *classifier) lldbRuns(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return
		}
		opt, val, attached := strings.Cut(a.s, "=")
		var file bool
		switch opt {
		case "-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash", "-K":
		case "-s", "--source", "-S", "--source-before-file", "--source-on-crash":
			file = true
		default:
			continue
		}
		v, ok := optionValue(args, &i, a, val, attached)
		if !ok {
			return
		}
		what := "lldb " + opt
		if !file {
			c.lldbCommand(v, what)
			continue
		}
		if text, ok := c.scriptText(v, what, "lldb commands"); ok {
			for _, line := range strings.Split(text, "\n") {
				c.lldbCommand(lit(line), what+" "+v.s)
			}
		}
	}
}

var lldbShell = regexp.MustCompile(`^(?:platform\s+shell|shell)(?:\s+|$)`)

func (c *classifier) lldbCommand(v value, what string) {
	c.atLeast(Ordinary)
	if !v.known {
		c.commandLine(v, what)
		return
	}
	s := strings.TrimSpace(v.s)
	switch {
	case lldbShell.MatchString(s):
		rest := s[len(lldbShell.FindString(s)):]
		if strings.HasPrefix(rest, "-") {
			if _, after, ok := strings.Cut(rest, "-- "); ok {
				rest = after
			}
		}
		c.commandLine(part(v, rest), what+" platform shell")
	case strings.HasPrefix(s, "script ") || strings.HasPrefix(s, "script\t"):
		c.code("python", s[len("script"):], what+" script")
	}
}

// scriptText is the text of a file of commands a program reads: a file this
// command line wrote, or one on disk; ok is false when there is none to read
// (or the verdict already says why not).
func (c *classifier) scriptText(v value, what, kind string) (string, bool) {
	switch {
	case v.download:
		c.flag(Blocked, what+" reads "+kind+" from a download")
		return "", false
	case !v.known:
		c.flag(Explicit, what+" reads "+kind+" from a file the classifier cannot see ("+v.text()+")")
		return "", false
	}
	abs := c.absPath(v.s)
	if w, ok := c.files[abs]; ok {
		src := w.source()
		switch {
		case src.download:
			c.flag(Blocked, what+" reads "+kind+" from a download")
			return "", false
		case src.file:
			b, read := readSmall(src.path)
			return string(b), read
		case !src.visible:
			c.flag(Explicit, what+" reads "+kind+" from a file whose content the classifier cannot see")
			return "", false
		}
		return src.text, true
	}
	if c.changedFile(abs, what) {
		return "", false
	}
	b, ok := readSmall(abs)
	return string(b), ok
}

// stdinText is what a pipe or here-document feeds a program that reads
// commands from it; ok is false when there is nothing to judge (or the
// verdict already says why not).
func (c *classifier) stdinText(stdin *source, what, kind string) (string, bool) {
	switch {
	case stdin == nil:
		return "", false
	case stdin.download:
		c.flag(Blocked, "pipes a download into "+what+", which runs "+kind)
		return "", false
	case stdin.file:
		b, ok := readSmall(stdin.path)
		return string(b), ok
	case !stdin.visible:
		c.flag(Explicit, "pipes data into "+what+", which runs it as "+kind+" the classifier cannot see")
		return "", false
	}
	return stdin.text, true
}

// sqliteRuns: sqlite3's dot commands .shell and .system run a command line,
// and .output, .once, .import and .read with |CMD pipe through one; they
// come as arguments after the database, from -cmd, or on stdin.
func (c *classifier) sqliteRuns(name string, args []value, stdin *source) {
	valued := map[string]bool{"-cmd": true, "-init": true, "-separator": true, "-nullvalue": true, "-newline": true,
		"-vfs": true, "-maxsize": true, "-mmap": true, "-heap": true, "-pagecache": true, "-lookaside": true,
		"-escape": true}
	db := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		opt := "-" + strings.TrimLeft(a.s, "-")
		switch {
		case db || !strings.HasPrefix(a.s, "-"):
			if !db {
				db = true
				continue
			}
			c.sqliteText(a, name)
		case opt == "-init" && i+1 < len(args):
			i++
			if text, ok := c.scriptText(args[i], name+" -init", "commands"); ok {
				c.sqliteText(lit(text), name+" -init")
			}
		case valued[opt] && i+1 < len(args):
			i++
			if opt == "-cmd" {
				c.sqliteText(args[i], name+" -cmd")
			}
		}
	}
	if text, ok := c.stdinText(stdin, name, "commands"); ok {
		c.sqliteText(lit(text), name)
	}
}

// sqliteText judges the dot commands of lines of sqlite3 input.
func (c *classifier) sqliteText(v value, what string) {
	if !v.known {
		if strings.HasPrefix(v.text(), ".") || strings.HasPrefix(v.text(), "\"") {
			c.flag(Explicit, what+" runs a command the classifier cannot see ("+v.text()+"), which can be .shell")
		}
		return
	}
	for _, line := range strings.Split(v.s, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, ".") {
			continue
		}
		cmd, rest, _ := strings.Cut(line[1:], " ")
		rest = strings.TrimSpace(rest)
		words, err := shlexSplit(rest)
		if err != nil {
			words = []string{rest}
		}
		switch cmd {
		case "shell", "system", "sh", "sys", "she", "shel", "syst", "syste":
			c.commandLine(part(v, strings.Join(words, " ")), what+" ."+cmd)
		case "output", "once", "import", "read", "out", "outp", "outpu", "o", "on", "onc", "imp", "impo", "impor",
			"rea":
			for _, w := range words {
				if strings.HasPrefix(w, "|") {
					c.commandLine(part(v, w[1:]), what+" ."+cmd+" |")
				}
			}
		}
	}
}

var (
	psqlShell = regexp.MustCompile(`\\!([^\n]*)`)
	psqlPipe  = regexp.MustCompile(`\\(?:o|out|g|w|write|gx)\s*\|([^\n]*)`)
	psqlProg  = regexp.MustCompile(`(?i)\bprogram\s+'((?:[^']|'')*)'`)
)

// psqlRuns: psql's \! CMD runs a shell command, \o |CMD, \g |CMD and
// \w |CMD pipe through one, and \copy … program 'CMD' runs one here; they
// come from -c, -f FILE or stdin.
func (c *classifier) psqlRuns(args []value, stdin *source) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			break
		}
		var v value
		var file bool
		switch {
		case a.s == "-c" || a.s == "--command" || a.s == "-f" || a.s == "--file":
			if i+1 >= len(args) {
				continue
			}
			file = a.s == "-f" || a.s == "--file"
			i++
			v = args[i]
		case strings.HasPrefix(a.s, "--command="):
			v = part(a, a.s[len("--command="):])
		case strings.HasPrefix(a.s, "--file="):
			v, file = part(a, a.s[len("--file="):]), true
		case strings.HasPrefix(a.s, "-c") && len(a.s) > 2:
			v = part(a, a.s[2:])
		case strings.HasPrefix(a.s, "-f") && len(a.s) > 2:
			v, file = part(a, a.s[2:]), true
		default:
			continue
		}
		if file {
			if v.s == "-" {
				continue // stdin, below
			}
			if text, ok := c.scriptText(v, "psql -f", "commands"); ok {
				c.psqlText(lit(text), "psql -f "+v.s)
			}
			continue
		}
		c.psqlText(v, "psql -c")
	}
	if text, ok := c.stdinText(stdin, "psql", "commands"); ok {
		c.psqlText(lit(text), "psql")
	}
}

func (c *classifier) psqlText(v value, what string) {
	if !v.known {
		c.flag(Explicit, what+" runs commands the classifier cannot see ("+v.text()+"), which can be \\! CMD")
		return
	}
	for _, m := range psqlShell.FindAllStringSubmatch(v.s, -1) {
		c.commandLine(part(v, m[1]), what+` \!`)
	}
	for _, m := range psqlPipe.FindAllStringSubmatch(v.s, -1) {
		c.commandLine(part(v, m[1]), what+` \o |`)
	}
	for _, m := range psqlProg.FindAllStringSubmatch(v.s, -1) {
		if strings.Contains(strings.ToLower(v.s), `\copy`) {
			c.commandLine(part(v, strings.ReplaceAll(m[1], "''", "'")), what+` \copy program`)
		}
	}
}

var mysqlShell = regexp.MustCompile(`(?im)(?:^|;)\s*(?:system|\\!)\s+([^;\n]*)`)

// mysqlRuns: the mysql client's "system CMD" (\! CMD) runs a shell command;
// it comes from -e/--execute or stdin.
func (c *classifier) mysqlRuns(name string, args []value, stdin *source) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v value
		switch {
		case a.s == "-e" || a.s == "--execute":
			if i+1 >= len(args) {
				return
			}
			i++
			v = args[i]
		case strings.HasPrefix(a.s, "--execute="):
			v = part(a, a.s[len("--execute="):])
		case strings.HasPrefix(a.s, "-e") && len(a.s) > 2:
			v = part(a, a.s[2:])
		default:
			continue
		}
		c.mysqlText(v, name+" -e")
	}
	if text, ok := c.stdinText(stdin, name, "statements"); ok {
		c.mysqlText(lit(text), name)
	}
}

func (c *classifier) mysqlText(v value, what string) {
	if !v.known {
		c.flag(Explicit, what+" runs statements the classifier cannot see ("+v.text()+"), which can be system CMD")
		return
	}
	for _, m := range mysqlShell.FindAllStringSubmatch(v.s, -1) {
		c.commandLine(part(v, m[1]), what+" system")
	}
}

var tclDynamic = regexp.MustCompile(`\b(?:eval|uplevel|source|open|interp|after|namespace|proc|rename)\b`)

// expectRuns: expect -c SCRIPT is Tcl; spawn and exec run a program with
// its arguments, system a shell command line. Tcl the classifier does not
// follow ([…] substitution, eval, source, open, variables) needs explicit
// approval.
func (c *classifier) expectRuns(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return
		}
		if a.s != "-c" || i+1 >= len(args) {
			continue
		}
		i++
		v := args[i]
		what := "expect -c"
		switch {
		case !v.known:
			c.commandLine(v, what)
			continue
		case strings.ContainsAny(v.s, "[$") || tclDynamic.MatchString(v.s):
			c.flag(Explicit, what+" runs Tcl the classifier does not follow ("+v.text()+")")
			continue
		}
		for _, stmt := range strings.FieldsFunc(v.s, func(r rune) bool { return r == ';' || r == '\n' }) {
			words, err := shlexSplit(strings.NewReplacer("{", "'", "}", "'").Replace(stmt))
			if err != nil || len(words) < 2 {
				continue
			}
			cmd, rest := words[0], words[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && cmd != "system" {
				rest = rest[1:] // spawn -noecho, exec -ignorestderr, --
			}
			if len(rest) == 0 {
				continue
			}
			switch cmd {
			case "system":
				c.commandLine(lit(strings.Join(rest, " ")), what+" system")
			case "spawn", "exec":
				argv := make([]value, 0, len(rest))
				for _, w := range rest {
					if strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") ||
						w == "|" || w == "&" {
						break
					}
					argv = append(argv, lit(w))
				}
				if len(argv) > 0 {
					c.command(argv, nil)
				}
			}
		}
	}
}

// socatRuns: a socat address EXEC:CMD runs a program with its arguments,
// SYSTEM:CMD (and SHELL:CMD) a shell command line; the command ends at the
// first comma, where the address's options begin. Type names are in any
// case, and two addresses may be joined with !!.
func (c *classifier) socatRuns(args []value) {
	for _, a := range args {
		for _, addr := range strings.Split(a.s, "!!") {
			typ, cmd, ok := strings.Cut(addr, ":")
			if !ok {
				continue
			}
			kind := runNone
			switch strings.ToUpper(typ) {
			case "EXEC":
				kind = runArgv
			case "SYSTEM", "SHELL":
				kind = runLine
			default:
				continue
			}
			cmd = socatParam(cmd)
			if !a.known && (strings.Contains(cmd, "$") || strings.Contains(cmd, "`")) {
				c.flag(Explicit, "socat "+strings.ToUpper(typ)+": runs a command the classifier cannot see ("+
					a.text()+")")
				continue
			}
			c.run(kind, part(a, cmd), "socat "+strings.ToUpper(typ)+":")
		}
	}
}

// socatParam is an address's parameter up to its first comma outside
// quotes (socat 1.7.4 and later honour '…' and "…" there).
func socatParam(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case q != 0:
			if ch == q {
				q = 0
			}
		case ch == '\\':
			i++
		case ch == '"' || ch == '\'':
			q = ch
		case ch == ',':
			return s[:i]
		}
	}
	return s
}

// ncRuns: netcat's -e PROG (ncat --exec) runs a program for the connection,
// -c CMD (ncat --sh-exec) a shell command line; ncat --lua-exec runs a Lua
// script.
func (c *classifier) ncRuns(name string, args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return
		}
		switch {
		case strings.HasPrefix(a.s, "--"):
			opt, val, attached := strings.Cut(a.s[2:], "=")
			n, ok := longMatch(opt, []string{"exec", "sh-exec", "lua-exec"})
			if !ok {
				continue
			}
			v, ok := optionValue(args, &i, a, val, attached)
			if !ok {
				return
			}
			switch n {
			case "exec":
				c.namedProgram(name+" --exec", v, true)
			case "sh-exec":
				c.commandLine(v, name+" --sh-exec")
			default:
				c.runFile("lua", v.s, name+" --lua-exec")
			}
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			v, f, rest := bundleValue(a, args[i+1:], "cdeGgimpsqwxIOTXPVMm")
			i = len(args) - len(rest) - 1
			switch f {
			case 'e':
				c.namedProgram(name+" -e", v, true)
			case 'c':
				c.commandLine(v, name+" -c")
			}
		}
	}
}

// cmakeRuns: cmake -E rm, remove and remove_directory delete as rm does;
// env, chdir DIR and time run the command that follows.
//
// cmake -P FILE runs a CMake script and -C FILE one that fills the cache
// (a commandFile): execute_process(COMMAND …) runs its programs,
// file(REMOVE …) and file(REMOVE_RECURSIVE …) delete as rm -f and rm -rf.
func (c *classifier) cmakeRuns(args []value) {
	for i, a := range args {
		if a.s == "--" {
			return // cmake --build … -- ARGS: the build tool's arguments
		}
		if (a.s == "-P" || a.s == "-C") && i+1 < len(args) {
			f := args[i+1]
			what := "cmake " + a.s + " " + f.text()
			c.commandFile(f, what, "a CMake script", func(j *classifier, text string) { j.cmakeScript(text, what) })
			continue
		}
		if strings.HasPrefix(a.s, "-C") && len(a.s) > 2 {
			f := part(a, a.s[2:])
			what := "cmake -C " + f.text()
			c.commandFile(f, what, "a CMake script", func(j *classifier, text string) { j.cmakeScript(text, what) })
			continue
		}
		if a.s != "-E" || i+1 >= len(args) {
			continue
		}
		sub, rest := args[i+1].s, args[i+2:]
		switch sub {
		case "rm":
			c.command(append([]value{lit("rm")}, rest...), nil)
		case "remove", "remove_directory":
			argv := []value{lit("rm"), lit("-f")}
			if sub == "remove_directory" {
				argv = []value{lit("rm"), lit("-rf")}
			}
			var files []value
			for _, r := range rest {
				if sub == "remove" && r.s == "-f" {
					continue
				}
				files = append(files, r)
			}
			c.command(append(append(argv, lit("--")), files...), nil)
		case "env":
			c.command(append([]value{lit("env")}, rest...), nil)
		case "chdir":
			if len(rest) > 1 {
				c.command(rest[1:], nil)
			}
		case "time":
			if len(rest) > 0 {
				c.command(rest, nil)
			}
		}
		return
	}
}

// screenRuns: screen [options] CMD ARGS… starts CMD in a new window (-dm in
// a detached session), -s names the shell it starts, and -X sends commands
// to a running session (which may be the user's own, outside the sandbox).
func (c *classifier) screenRuns(args []value) {
	c.atLeast(Ordinary)
	reattach := false
	start := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "-X":
			if i+1 < len(args) {
				c.screenCommand(args[i+1:])
			}
			return
		case a.s == "-ls" || a.s == "-list" || a.s == "-wipe" || a.s == "-Q" || a.s == "-v" || a.s == "-version":
			return
		case a.s == "-Logfile":
			i++
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			letters := a.s[1:]
			if strings.Contains(letters, "m") {
				start = true
			}
			for j := 0; j < len(letters); j++ {
				l := letters[j]
				if strings.IndexByte("rRxdD", l) >= 0 {
					reattach = true
				}
				if strings.IndexByte("ceFhpSsTt", l) < 0 {
					continue
				}
				v := part(a, letters[j+1:])
				if j+1 == len(letters) {
					if i+1 >= len(args) {
						return
					}
					i++
					v = args[i]
				}
				if l == 's' {
					c.namedProgram("screen -s", part(v, strings.TrimPrefix(v.s, "-")), true)
				}
				break
			}
		default:
			if reattach && !start {
				return // the session's name
			}
			c.command(args[i:], nil)
			return
		}
	}
}

// screenCommand judges screen -X CMD ARGS…: stuff types its text into a
// window's shell, exec and screen run a program.
func (c *classifier) screenCommand(args []value) {
	switch args[0].s {
	case "stuff":
		keys := joinValues(args[1:])
		keys.s = strings.NewReplacer(`\n`, "\n", `\r`, "\n", `^M`, "\n", `^J`, "\n").Replace(keys.s)
		c.commandLine(keys, "screen -X stuff")
	case "exec", "screen":
		if len(args) > 1 {
			c.command(args[1:], nil)
		}
	default:
		if !args[0].known {
			c.flag(Explicit, "screen -X sends a command the classifier cannot see ("+args[0].text()+")")
		}
	}
}

// atRuns: at and batch read a script from stdin, or -f FILE, and run it
// later with sh; it is judged as sh judges the same script. -l, -r, -d and
// -c list, remove and print jobs.
func (c *classifier) atRuns(name string, args []value, stdin *source) {
	c.atLeast(Ordinary)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.s, "-") || a.s == "--" {
			break
		}
		v, f, rest := bundleValue(a, args[i+1:], "qft")
		i = len(args) - len(rest) - 1
		switch {
		case f == 'f':
			if !v.known {
				c.commandLine(v, name+" -f") // a script the classifier cannot see
			} else {
				c.runFile("sh", v.s, name+" -f "+v.s)
			}
			return
		case f == 0 && strings.ContainsAny(a.s[1:], "lrdc"):
			return
		}
	}
	c.fromStdin(name, stdin)
}

// crontabRuns: crontab FILE, crontab - and crontab alone (which reads
// stdin) install a table whose commands cron runs later, outside any
// approval: that needs explicit approval whatever they are, and each
// command is judged besides, so a hard block stays one.
func (c *classifier) crontabRuns(args []value, stdin *source) {
	c.atLeast(Ordinary)
	var file *value
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "-u" || a.s == "-n":
			i++
		case a.s == "-":
			file = &args[i]
		case strings.HasPrefix(a.s, "-") && strings.ContainsAny(a.s[1:], "lreT"):
			return // list, remove, edit (an editor: the user sees it), test
		case strings.HasPrefix(a.s, "-"):
		default:
			file = &args[i]
		}
	}
	c.flag(Explicit, "installs a cron table, whose commands run later outside any approval (crontab)")
	var text string
	var ok bool
	if file == nil || file.s == "-" {
		text, ok = c.stdinText(stdin, "crontab", "a cron table")
	} else {
		text, ok = c.scriptText(*file, "crontab", "a cron table")
	}
	if !ok {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		if cmd, ok := cronCommand(line); ok {
			c.nested(cmd, "crontab")
		}
	}
}

// cronCommand is the command of a crontab line (after five time fields or an
// @nickname, up to the first unescaped %, after which the text is its
// stdin), or false for a comment, a blank line or a variable setting.
func cronCommand(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", false
	}
	fields := 5
	if strings.HasPrefix(line, "@") {
		fields = 1
	} else if eq := strings.IndexByte(line, '='); eq >= 0 && !strings.ContainsAny(line[:eq], " \t") {
		return "", false
	}
	s := line
	for n := 0; n < fields; n++ {
		s = strings.TrimLeft(s, " \t")
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return "", false
		}
		s = s[end:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if s[i] == '%' {
			break
		}
		b.WriteByte(s[i])
	}
	return strings.TrimSpace(b.String()), true
}

// containerRuns: docker (podman, nerdctl) run and create with a bind mount
// of the filesystem root, the home directory or a top-level directory give
// the container the host's files to change as its root user; --privileged
// gives it the host's devices. Either needs explicit approval.
func (c *classifier) containerRuns(name string, args []value) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].s, "-") {
		if !strings.Contains(args[i].s, "=") && dockerGlobalValued(args[i].s) {
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub := args[i].s
	i++
	if sub == "container" && i < len(args) {
		sub = args[i].s
		i++
	}
	if sub != "run" && sub != "create" {
		return
	}
	what := name + " " + sub
	for ; i < len(args); i++ {
		a := args[i]
		if a.s == "--" || !strings.HasPrefix(a.s, "-") {
			return // the image; what follows is the container's command
		}
		opt, val, attached := strings.Cut(a.s, "=")
		if strings.HasPrefix(opt, "-v") && opt != "-v" && !strings.HasPrefix(opt, "--") {
			opt, val, attached = "-v", a.s[2:], true
		}
		switch opt {
		case "--privileged":
			if !attached || val == "true" {
				c.flag(Explicit, "gives a container the host's devices and privileges ("+what+" --privileged)")
			}
			continue
		case "-v", "--volume", "--mount":
		default:
			if !attached && dockerRunValued(opt) {
				i++
			}
			continue
		}
		v, ok := optionValue(args, &i, a, val, attached)
		if !ok {
			return
		}
		var src string
		if opt == "--mount" {
			for _, kv := range strings.Split(v.s, ",") {
				k, x, _ := strings.Cut(kv, "=")
				if k == "source" || k == "src" {
					src = x
				}
			}
		} else {
			src, _, _ = strings.Cut(v.s, ":")
		}
		switch {
		case !v.known && strings.ContainsAny(src, "$`"):
			c.flag(Explicit, what+" mounts a host directory the classifier cannot see ("+v.text()+")")
		case src == "" || !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "."):
			// a named volume
		case c.hostRoot(c.absPath(src)):
			c.flag(Explicit, "gives a container the host's root, home or a top-level directory ("+what+" "+opt+" "+
				v.s+")")
		case c.treeHoldsSecrets(c.absPath(src)):
			c.flag(Explicit, "gives a container a tree that holds secrets ("+what+" "+opt+" "+v.s+")")
		}
	}
}

// hostRoot reports the filesystem root, the home directory or a directory
// that holds it, and the top-level directories.
func (c *classifier) hostRoot(abs string) bool {
	abs = path.Clean(abs)
	home := c.env.Home
	return abs == "/" || path.Dir(abs) == "/" || home != "" && (abs == home || strings.HasPrefix(home, abs+"/"))
}

func dockerGlobalValued(opt string) bool {
	switch opt {
	case "--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey",
		"--connection", "--url", "--identity", "--root", "--runroot", "--storage-driver", "--cgroup-manager",
		"--events-backend", "--network-cmd-path", "--runtime", "--tmpdir", "--namespace", "-n", "--address", "-a":
		return true
	}
	return false
}

// dockerRunValued reports an option of docker run that takes a value: all
// but the flags.
func dockerRunValued(opt string) bool {
	switch opt {
	case "-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--init", "-P", "--publish-all",
		"--read-only", "--sig-proxy", "--no-healthcheck", "--oom-kill-disable", "--disable-content-trust", "-q",
		"--quiet", "--help", "--use-api-socket", "--replace", "--rmi", "--tls-verify", "--http-proxy", "--env-host",
		"--read-only-tmpfs", "--no-hosts", "--passwd", "--systemd":
		return false
	}
	if len(opt) >= 2 && opt[0] == '-' && opt[1] != '-' {
		return strings.IndexByte("ditPq", opt[len(opt)-1]) < 0 // a bundle: its last letter may take one
	}
	return strings.HasPrefix(opt, "-")
}

// commandFile judges a file of commands a program reads (ssh -F, sftp -b,
// vim -S, cmake -P, tmux source-file) as makeFile judges a makefile: judge
// gets the text and the classifier to judge it with, this one when this
// command line wrote the text (every command counts), a sub-classifier
// whose hard block alone carries over when the file is on disk (the
// project's own, as sh FILE is) or a copy of one; a file written unseen
// needs explicit approval and one from a download is refused.
func (c *classifier) commandFile(v value, what, kind string, judge func(j *classifier, text string)) {
	c.atLeast(Ordinary)
	switch {
	case v.download:
		c.flag(Blocked, what+" reads "+kind+" from a download")
		return
	case !v.known:
		c.flag(Explicit, what+" reads "+kind+" from a file the classifier cannot see ("+v.text()+")")
		return
	case c.depth >= maxDepth:
		return
	}
	abs := c.resolveLinks(c.absPath(c.tilde(v.s)))
	if c.lostFile(abs, what) || c.calling["file "+abs] {
		return // a file that reads itself again (bind r source-file ~/.tmux.conf)
	}
	c.calling = set(c.calling, "file "+abs, true)
	defer func() { c.calling["file "+abs] = false }()
	w, ok := c.files[abs]
	switch {
	case !ok:
		if !c.changedFile(abs, what) {
			if b, read := readSmall(abs); read {
				c.carryBlock(what, string(b), judge)
			}
		}
	case w.download:
		c.flag(Blocked, what+" reads "+kind+" from a download")
	case w.from != "":
		if b, read := readSmall(w.from); read {
			c.carryBlock(what, string(b), judge)
		}
	case !w.visible:
		c.flag(Explicit, what+" reads "+kind+" from a file this command wrote a moment before, whose content the "+
			"classifier cannot see")
	default:
		c.depth++
		judge(c, w.text)
		c.depth--
	}
}

// carryBlock judges text with a sub-classifier and carries only its hard
// block over, as scanText does.
func (c *classifier) carryBlock(what, text string, judge func(j *classifier, text string)) {
	if c.depth >= maxDepth {
		return
	}
	sub := c.sub()
	sub.calling = clone(c.calling)
	judge(sub, text)
	if sub.class == Blocked {
		for _, r := range sub.reasons {
			c.flag(Blocked, what+" runs a command that "+strings.TrimPrefix(r, "inline "))
		}
	}
}

// sshConfigFile judges ssh -F FILE: the ssh_config(5) keywords whose value
// is a command line ssh runs here (ProxyCommand, LocalCommand,
// KnownHostsCommand), Match exec "CMD", and the files Include reads
// (relative to ~/.ssh, as for a user's configuration). ssh refuses Include
// as a -o option ("Include directive not supported as a command-line
// option"), so only a file holds one.
func (c *classifier) sshConfigFile(v value, what string) {
	if v.known && v.s == "none" {
		return
	}
	c.commandFile(v, what, "ssh configuration", func(j *classifier, text string) { j.sshConfig(text, what+" "+v.s) })
}

func (c *classifier) sshConfig(text, what string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, " \t=")
		if end < 0 {
			continue
		}
		key := strings.ToLower(line[:end])
		val := strings.TrimLeft(line[end:], " \t")
		val = strings.TrimLeft(strings.TrimPrefix(val, "="), " \t")
		switch {
		case sshCommandKeys[key]:
			if !strings.EqualFold(val, "none") {
				c.nested(val, what+" "+line[:end])
			}
		case key == "match":
			words := sshWords(val) // Match exec CMD, !exec CMD, exec=CMD (OpenSSH 9.4 and later)
			for i := 0; i < len(words); i++ {
				k, cmd, eq := strings.Cut(words[i], "=")
				if !strings.EqualFold(strings.TrimPrefix(k, "!"), "exec") {
					continue
				}
				if !eq {
					if i+1 >= len(words) {
						break
					}
					i++
					cmd = words[i]
				}
				c.nested(cmd, what+" Match exec")
			}
		case key == "include":
			for _, name := range sshWords(val) {
				if strings.ContainsAny(name, "*?[%$") {
					c.flag(Explicit, what+" includes files the classifier cannot see ("+name+")")
					continue
				}
				if !path.IsAbs(name) && !strings.HasPrefix(name, "~") {
					name = "~/.ssh/" + name
				}
				c.sshConfigFile(lit(name), what+" Include")
			}
		}
	}
}

// sshWords splits an ssh_config value into its arguments: blanks separate
// them, and a double-quoted argument may hold blanks.
func sshWords(s string) []string {
	var out []string
	var b strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"':
			inQuote, have = !inQuote, true
		case !inQuote && (ch == ' ' || ch == '\t'):
			if have {
				out = append(out, b.String())
				b.Reset()
				have = false
			}
		default:
			b.WriteByte(ch)
			have = true
		}
	}
	if have {
		out = append(out, b.String())
	}
	return out
}

// sftpBatch judges sftp -b FILE: a line "!CMD" (after the - and @ prefixes
// that ignore errors and echo) runs CMD with the local shell, a lone "!"
// starts one.
func (c *classifier) sftpBatch(v value, text string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "-@ \t")
		if cmd, ok := strings.CutPrefix(line, "!"); ok {
			c.nested(cmd, "sftp -b "+v.s+" !")
		}
	}
}

// vimFile judges a file of Ex commands vim sources (lines joined where the
// next begins with \, "-comments skipped), or with keys a file vim types:
// each : in it may start an Ex command line and each ! a filter (!!CMD,
// !{motion}CMD), which run to the line's end.
func (c *classifier) vimFile(text, what string, keys bool) {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " \t")
		if !keys && strings.HasPrefix(t, "\\") && len(lines) > 0 {
			lines[len(lines)-1] += t[1:]
			continue
		}
		lines = append(lines, line)
	}
	for _, line := range lines {
		if !keys {
			if t := strings.TrimLeft(line, " \t:"); t != "" && t[0] != '"' {
				c.vimCommand(lit(t), what)
			}
			continue
		}
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case ':':
				c.vimCommand(lit(line[i+1:]), what)
			case '!':
				c.commandLine(lit(strings.TrimLeft(line[i:], "!")), what+" !")
				i = len(line)
			}
		}
	}
}

// cmakeScript judges the commands of a CMake script that run programs or
// delete files. An argument with a variable reference the classifier does
// not follow is one it cannot see; ~ is taken as the home directory (CMake
// does not expand it, so that only makes the verdict stricter).
func (c *classifier) cmakeScript(text, what string) {
	for _, call := range cmakeCalls(text) {
		args := make([]value, len(call.args))
		for i, a := range call.args {
			a = strings.ReplaceAll(a, "$ENV{HOME}", "~")
			if strings.Contains(a, "${") || strings.Contains(a, "$ENV{") || strings.Contains(a, "$CACHE{") {
				args[i] = value{s: a}
				continue
			}
			args[i] = lit(c.tilde(a))
		}
		switch call.name {
		case "execute_process", "exec_program":
			c.cmakeProcess(call.name, args, what)
		case "file":
			if len(args) == 0 || args[0].s != "REMOVE" && args[0].s != "REMOVE_RECURSIVE" {
				continue
			}
			argv := []value{lit("rm"), lit("-f")}
			if args[0].s == "REMOVE_RECURSIVE" {
				argv = []value{lit("rm"), lit("-rf")}
			}
			c.command(append(append(argv, lit("--")), args[1:]...), nil)
		}
	}
}

// cmakeProcessKeys are execute_process's keywords that end a COMMAND's
// arguments.
var cmakeProcessKeys = map[string]bool{"COMMAND": true, "WORKING_DIRECTORY": true, "TIMEOUT": true,
	"RESULT_VARIABLE": true, "RESULTS_VARIABLE": true, "OUTPUT_VARIABLE": true, "ERROR_VARIABLE": true,
	"INPUT_FILE": true, "OUTPUT_FILE": true, "ERROR_FILE": true, "OUTPUT_QUIET": true, "ERROR_QUIET": true,
	"COMMAND_ECHO": true, "OUTPUT_STRIP_TRAILING_WHITESPACE": true, "ERROR_STRIP_TRAILING_WHITESPACE": true,
	"ENCODING": true, "ECHO_OUTPUT_VARIABLE": true, "ECHO_ERROR_VARIABLE": true, "COMMAND_ERROR_IS_FATAL": true,
	"ARGS": true, "OUTPUT_VARIABLE_": true, "RETURN_VALUE": true}

// cmakeProcess judges execute_process(COMMAND prog args… [COMMAND …]) and
// the older exec_program(prog [ARGS args…]), whose arguments a shell reads.
func (c *classifier) cmakeProcess(name string, args []value, what string) {
	if name == "exec_program" {
		if len(args) > 0 {
			line := args[:1]
			for i := 1; i < len(args); i++ {
				if args[i].s == "ARGS" {
					for i++; i < len(args) && !cmakeProcessKeys[args[i].s]; i++ {
						line = append(line, args[i])
					}
				}
			}
			c.commandLine(joinValues(line), what+" exec_program")
		}
		return
	}
	for i := 0; i < len(args); i++ {
		if args[i].s != "COMMAND" {
			continue
		}
		j := i + 1
		for j < len(args) && !cmakeProcessKeys[args[j].s] {
			j++
		}
		if j > i+1 {
			c.command(args[i+1:j], nil)
		}
		i = j - 1
	}
}

// cmakeCall is one command invocation of a CMake script: its name in lower
// case and its arguments, quoted ones unquoted, lists split at ;.
type cmakeCall struct {
	name string
	args []string
}

// cmakeCalls reads a CMake script's command invocations far enough to find
// the arguments (the CMake language's "Command Invocations" and
// "Command Arguments").
func cmakeCalls(text string) []cmakeCall {
	var calls []cmakeCall
	i := 0
	skipSpace := func() {
		for i < len(text) {
			switch {
			case text[i] == '#':
				if end, ok := cmakeBracket(text, i+1); ok {
					i = end
					continue
				}
				for i < len(text) && text[i] != '\n' {
					i++
				}
			case text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r':
				i++
			default:
				return
			}
		}
	}
	for {
		skipSpace()
		if i >= len(text) {
			return calls
		}
		start := i
		for i < len(text) && (text[i] == '_' || text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z' ||
			text[i] >= '0' && text[i] <= '9') {
			i++
		}
		name := strings.ToLower(text[start:i])
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if name == "" || i >= len(text) || text[i] != '(' {
			i = max(i, start+1)
			continue
		}
		i++
		call := cmakeCall{name: name}
		depth := 0
		for i < len(text) {
			skipSpace()
			if i >= len(text) {
				break
			}
			switch ch := text[i]; {
			case ch == ')':
				i++
				if depth == 0 {
					goto done
				}
				depth--
			case ch == '(':
				depth++
				i++
			case ch == '"':
				var b strings.Builder
				for i++; i < len(text) && text[i] != '"'; i++ {
					if text[i] == '\\' && i+1 < len(text) {
						i++
						switch text[i] {
						case 'n':
							b.WriteByte('\n')
							continue
						case 't':
							b.WriteByte('\t')
							continue
						case '\n':
							continue
						}
					}
					b.WriteByte(text[i])
				}
				i++
				call.args = append(call.args, b.String())
			case ch == '[':
				if end, ok := cmakeBracket(text, i); ok {
					open := strings.IndexByte(text[i+1:], '[') + i + 2
					call.args = append(call.args, text[open:end-(open-i)])
					i = end
					continue
				}
				fallthrough
			default:
				s := i
				for i < len(text) && !strings.ContainsRune(" \t\r\n()#\"", rune(text[i])) {
					if text[i] == '\\' {
						i++
					}
					i++
				}
				for _, a := range strings.Split(text[s:min(i, len(text))], ";") {
					if a != "" {
						call.args = append(call.args, a)
					}
				}
			}
		}
	done:
		calls = append(calls, call)
	}
}

// cmakeBracket reports the end (just past it) of a bracket argument or
// comment [==[ … ]==] starting at text[i], if one starts there.
func cmakeBracket(text string, i int) (int, bool) {
	if i >= len(text) || text[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(text) && text[j] == '=' {
		j++
	}
	if j >= len(text) || text[j] != '[' {
		return 0, false
	}
	closer := "]" + strings.Repeat("=", j-i-1) + "]"
	end := strings.Index(text[j+1:], closer)
	if end < 0 {
		return len(text), true
	}
	return j + 1 + end + len(closer), true
}
