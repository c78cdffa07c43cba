package shellpolicy

import (
	"path"
	"strings"
	"sync"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// inspectors maps the commands that can be read-only to the check of
// their arguments; nil means any arguments are harmless.
var inspectors = sync.OnceValue(func() map[string]func(*classifier, []value) bool {
	any := (func(*classifier, []value) bool)(nil)
	return map[string]func(*classifier, []value) bool{
		"ls": any, "cat": any, "head": any, "tail": any, "wc": any, "pwd": any, "echo": any, "printf": any,
		"grep": grepRule, "egrep": grepRule, "fgrep": grepRule, "stat": any, "du": any, "df": any,
		"which": any, "whoami": any, "id": any, "uname": any, "basename": any, "dirname": any, "realpath": any,
		"readlink": any, "diff": diffRule, "cmp": any, "cut": any, "tr": any, "nl": any, "true": any, "false": any,
		"test": any, "[": any, "type": any, "md5sum": any, "sha1sum": any, "sha256sum": any, "sha512sum": any,
		"tac": any, "rev": any, "od": any, "hexdump": any, "strings": any, "column": any, "fold": any, "comm": any,
		"expand": any, "seq": any, "cd": any, "base64": any, "base32": any, "nproc": any, "uptime": any,
		// Each reader's options that write a file or run a program are
		// listed and refused: rg --pre and --hostname-bin run one, -z runs
		// decompressors; ag --pager; tree -o and -R write files; fd -l runs
		// ls; file -C writes and -z runs decompressors. ack is not a reader:
		// a project's .ackrc can give it --pager.
		// rg --pre is judged as the program it names, by rgPre.
		"rg":       recursiveReader(without("--pre", "--pre-glob", "--hostname-bin", "-z", "--search-zip")),
		"ag":       recursiveReader(without("--pager")),
		"file":     without("-C", "--compile", "-z", "--uncompress", "-Z", "--uncompress-noreport"),
		"tree":     without("-o", "-R"),
		"sort":     without("-o", "--output", "--compress-program"),
		"fd":       without("-x", "--exec", "-X", "--exec-batch", "-l", "--list-details"),
		"fdfind":   without("-x", "--exec", "-X", "--exec-batch", "-l", "--list-details"),
		"find":     findRule,
		"uniq":     atMostOperands(1),
		"xxd":      func(c *classifier, a []value) bool { return atMostOperands(1)(c, a) && !has(a, "-r", "-revert") },
		"hostname": func(_ *classifier, a []value) bool { return len(a) == 0 },
		"date":     readOnlyDate,
		"sed":      readOnlySed,
		"go":       readOnlyGo,
		"printenv": printenvRule,
		"set":      setRule,
		"ps":       psRule,
		"jq":       jqRule,
	}
})

// inspector reports whether name can be read-only at all (so its path
// arguments are reads, not writes).
func inspector(name string) bool {
	_, ok := inspectors()[name]
	return ok
}

// inspect reports whether name with args only inspects. An expanded
// argument could be any flag, so only commands whose every argument is
// harmless accept one.
func (c *classifier) inspect(name string, args []value) bool {
	rule, ok := inspectors()[name]
	if !ok {
		return false
	}
	if name == "rg" {
		c.rgPre(args)
	}
	if rule == nil {
		return true
	}
	for _, a := range args {
		if !a.literal {
			return false
		}
	}
	return rule(c, args)
}

// searchedFile stands for each file rg hands its --pre program: a path
// the classifier cannot know.
var searchedFile = value{s: `"$FILE"`}

// rgPre judges each program rg --pre PROG (or --hostname-bin PROG) runs:
// a shell or an interpreter runs every searched file as code, which needs
// explicit approval; any other program is judged as a command given a
// searched file (rm FILE, ./tool FILE, env FILE), one it cannot see.
func (c *classifier) rgPre(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		opt, v, eq := strings.Cut(a.s, "=")
		if a.s == "--" {
			return
		}
		if opt != "--pre" && opt != "--hostname-bin" {
			continue
		}
		c.atLeast(Ordinary)
		if !eq {
			if i+1 >= len(args) {
				return
			}
			i++
			a, v = args[i], args[i].s
		} else {
			a.s = v
		}
		prog := path.Base(v)
		switch {
		case v == "":
		case !a.known || a.download:
			c.flag(Explicit, "rg "+opt+" runs a program the classifier cannot see ("+a.text()+")")
		case opt == "--pre" && (shellName(prog) || lang(prog) != ""):
			c.flag(Explicit, "rg --pre "+v+" runs every file it searches as code")
		case opt == "--pre":
			c.command([]value{a, searchedFile}, nil)
		default:
			c.command([]value{a}, nil)
		}
	}
}

// without rejects arguments equal to (or of the form flag=…) any of flags.
func without(flags ...string) func(*classifier, []value) bool {
	return func(_ *classifier, args []value) bool { return !has(args, flags...) }
}

func atMostOperands(n int) func(*classifier, []value) bool {
	return func(_ *classifier, args []value) bool { return len(operands(args)) <= n }
}

// recursiveReader is a searcher that walks its operands: walking a tree
// that holds the user's credentials needs explicit approval.
func recursiveReader(rule func(*classifier, []value) bool) func(*classifier, []value) bool {
	return func(c *classifier, args []value) bool {
		for _, op := range operands(args)[min(1, len(operands(args))):] {
			if c.treeHoldsSecrets(c.absPath(op.s)) {
				c.flag(Explicit, "searches a tree that holds secrets ("+op.s+")")
			}
		}
		return rule == nil || rule(c, args)
	}
}

func grepRule(c *classifier, args []value) bool {
	if has(args, "-r", "-R", "--recursive", "--dereference-recursive", "--directories=recurse") || dirsRecurse(args) {
		return recursiveReader(nil)(c, args)
	}
	return true
}

// dirsRecurse reports grep -d recurse, the long way of writing -r.
func dirsRecurse(args []value) bool {
	for i, a := range args {
		if (a.s == "-d" || a.s == "--directories") && i+1 < len(args) && args[i+1].s == "recurse" || a.s == "-drecurse" {
			return true
		}
	}
	return false
}

// diffRule: diff -r walks both trees (with -N it prints every file one of
// them holds), so walking one that holds secrets needs explicit approval.
func diffRule(c *classifier, args []value) bool {
	if has(args, "-r", "--recursive") {
		for _, op := range operands(args) {
			if c.treeHoldsSecrets(c.absPath(op.s)) {
				c.flag(Explicit, "compares a tree that holds secrets ("+op.s+")")
			}
		}
	}
	return true
}

func findRule(c *classifier, args []value) bool {
	return !has(args, "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls")
}

// readOnlyDate refuses setting the clock (-s, or an operand not starting
// with '+').
func readOnlyDate(_ *classifier, args []value) bool {
	if has(args, "-s", "--set") {
		return false
	}
	for _, op := range operands(args) {
		if !strings.HasPrefix(op.s, "+") {
			return false
		}
	}
	return true
}

var sedPrint = lazyre.New(`^\s*((\d+|\$)(\s*,\s*(\d+|\$))?|/[^/]*/)?\s*p\s*$`)

// readOnlySed admits only `sed -n '<range>p' [files]`: sed scripts can write
// files (w, -i) or run commands (e), so anything else needs approval.
func readOnlySed(_ *classifier, args []value) bool {
	quiet, script := false, ""
	for i := 0; i < len(args); i++ {
		switch a := args[i].s; {
		case a == "-n" || a == "--quiet" || a == "--silent":
			quiet = true
		case a == "-E" || a == "-r":
		case a == "-e" && i+1 < len(args):
			if script != "" {
				return false
			}
			i++
			script = args[i].s
		case strings.HasPrefix(a, "-"):
			return false
		case script == "":
			script = a
		}
	}
	return quiet && sedPrint().MatchString(script)
}

func readOnlyGo(_ *classifier, args []value) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0].s {
	case "version":
		return true
	case "env":
		return !has(args[1:], "-w", "-u")
	}
	return false
}

// printenvRule: printing the whole environment, or a secret variable,
// shows secrets.
func printenvRule(c *classifier, args []value) bool {
	ops := operands(args)
	if len(ops) == 0 {
		c.flag(Explicit, "prints the environment, which holds secrets (printenv)")
	}
	for _, o := range ops {
		if c.secretVar(o.s) {
			c.flag(Explicit, "prints $"+o.s+", which holds a secret (printenv "+o.s+")")
		}
	}
	return true
}

// setRule: set alone prints every variable; with options it only changes
// this throwaway shell. -a exports every later assignment and -k makes
// NAME=VALUE arguments environment, so only the options that stop on
// errors, trace or limit globbing keep it read-only.
func setRule(c *classifier, args []value) bool {
	if len(args) == 0 {
		c.flag(Explicit, "prints every shell variable, which can hold secrets (set)")
	}
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "--" || a == "-":
			return true // the rest are positional parameters
		case a == "" || a[0] != '-' && a[0] != '+':
			return false
		case strings.HasSuffix(a, "o") && i+1 < len(args): // -o NAME, -euo NAME
			i++
			switch args[i].s {
			case "errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber", "noexec":
			default:
				return false
			}
			if strings.Trim(a[1:len(a)-1], "euxvfCn") != "" {
				return false
			}
		case strings.Trim(a[1:], "euxvfCn") != "":
			return false
		}
	}
	return true
}

// psRule: BSD-style e (ps e, ps auxe, ps eww) and -E print other
// processes' environments.
func psRule(c *classifier, args []value) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "e") || a.s == "-E" {
			c.flag(Explicit, "prints other processes' environments, which hold secrets (ps "+a.s+")")
		}
	}
	return true
}

// jqRule: jq's env and $ENV read the environment. A program from a file
// (-f) or a module it imports is one the classifier does not see. Every
// word but the values of --arg, --argjson, --slurpfile, --rawfile and
// --indent is read as a program (the program is one of them; a file
// named env costs an approval, not a secret).
func jqRule(c *classifier, args []value) bool {
	if has(args, "-f", "--from-file", "-L") {
		return false
	}
	for _, a := range args {
		if strings.Contains(a.s, "import") || strings.Contains(a.s, "include") {
			return false
		}
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i].s; {
		case a == "--arg" || a == "--argjson" || a == "--slurpfile" || a == "--rawfile":
			i += 2
		case a == "--indent":
			i++
		case jqReadsEnv(a):
			c.flag(Explicit, "reads the environment, which holds secrets (jq env)")
			return true
		}
	}
	return true
}

// jqReadsEnv reports whether the jq program p names the env builtin or
// $ENV: as a token of the program (string interpolation \(…) included),
// not in a string literal or a comment, not part of a longer identifier
// (environment, env_name, env::f), not a field (.env), not an object key
// ({env: 1}) and not another variable ($env).
func jqReadsEnv(p string) bool {
	// interp counts the open parentheses of each string interpolation
	// being read; a string is being read when the last is -1.
	var interp []int
	inString := func() bool { return len(interp) > 0 && interp[len(interp)-1] < 0 }
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case inString():
			switch {
			case ch == '\\' && i+1 < len(p) && p[i+1] == '(':
				interp[len(interp)-1] = -1 // stays a string once the interpolation ends
				interp = append(interp, 0)
				i++
			case ch == '\\':
				i++
			case ch == '"':
				interp = interp[:len(interp)-1]
			}
		case ch == '"':
			interp = append(interp, -1)
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case ch == '(' && len(interp) > 0:
			interp[len(interp)-1]++
		case ch == ')' && len(interp) > 0:
			if interp[len(interp)-1] == 0 {
				interp = interp[:len(interp)-1] // back in the string
			} else {
				interp[len(interp)-1]--
			}
		case jqIdentStart(ch):
			j := i
			for j < len(p) && (jqIdentStart(p[j]) || p[j] >= '0' && p[j] <= '9' ||
				p[j] == ':' && j+2 < len(p) && p[j+1] == ':' && jqIdentStart(p[j+2])) {
				if p[j] == ':' {
					j++
				}
				j++
			}
			word, before, after := p[i:j], strings.TrimRight(p[:i], " \t\r\n"), strings.TrimLeft(p[j:], " \t\r\n")
			dollar := strings.HasSuffix(before, "$")
			switch {
			case dollar && word == "ENV":
				return true
			case word != "env" || dollar || i > 0 && p[i-1] == '.':
			case strings.HasPrefix(after, ":") && !strings.HasPrefix(after, "::"): // {env: …}, def env: …
			default:
				return true
			}
			i = j - 1
		}
	}
	return false
}

func jqIdentStart(ch byte) bool { return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' }

// secretsCommand flags commands whose purpose is to print a credential;
// it reports whether name was one.
func (c *classifier) secretsCommand(name string, args []value) bool {
	sub := func(i int) string {
		ops := operands(args)
		if i < len(ops) {
			return ops[i].s
		}
		return ""
	}
	why := ""
	switch {
	case name == "gh" && sub(0) == "auth" && (sub(1) == "token" || has(args, "-t", "--show-token")):
		why = "prints a GitHub token (gh auth token)"
	case name == "security" && strings.HasPrefix(sub(0), "find-") && strings.HasSuffix(sub(0), "-password"):
		why = "reads the macOS keychain (security " + sub(0) + ")"
	case (name == "gpg" || name == "gpg2") && has(args, "--export-secret-keys", "--export-secret-subkeys"):
		why = "exports secret keys (gpg --export-secret-keys)"
	case (name == "pass" || name == "gopass") && (sub(0) == "show" || len(operands(args)) == 1):
		why = "prints a password store entry (" + name + ")"
	case name == "gcloud" && sub(0) == "auth" && strings.HasPrefix(sub(1), "print-"):
		why = "prints a Google Cloud token (gcloud auth " + sub(1) + ")"
	case name == "aws" && sub(0) == "configure" && (sub(1) == "get" || sub(1) == "export-credentials"):
		why = "prints AWS credentials (aws configure " + sub(1) + ")"
	case name == "az" && sub(0) == "account" && sub(1) == "get-access-token":
		why = "prints an Azure token (az account get-access-token)"
	case name == "op" && (sub(0) == "read" || sub(0) == "item" && sub(1) == "get"):
		why = "reads a 1Password secret (op " + sub(0) + ")"
	case name == "vault" && (sub(0) == "read" || sub(0) == "kv" && sub(1) == "get"):
		why = "reads a Vault secret (vault " + sub(0) + ")"
	case name == "kubectl" && (sub(1) == "secret" || sub(1) == "secrets") && sub(0) == "get":
		why = "reads Kubernetes secrets (kubectl get secret)"
	case strings.HasPrefix(name, "docker-credential-"):
		why = "reads stored registry credentials (" + name + ")"
	default:
		return false
	}
	c.flag(Explicit, why)
	return true
}

// readerOutputs are the files a program that can be a reader writes when
// its options or operands say so: sort -o, uniq's and xxd's second operand,
// tree -o, sed -i's files, and the NAME.mgc that file -C -m NAME compiles
// into the current directory. pathArgs checks them as writes.
func readerOutputs(name string, args []value) []value {
	var out []value
	keep := func(opt string, v value) {
		if opt == "-o" || opt == "--output" {
			out = append(out, v)
		}
	}
	switch name {
	case "sort":
		getopt(args, "kotSTy", []string{"--key", "--output", "--buffer-size", "--field-separator",
			"--temporary-directory", "--compress-program", "--files0-from", "--parallel", "--random-source",
			"--sort", "--batch-size"}, keep)
	case "uniq":
		if ops := getopt(args, "fsw", []string{"--skip-fields", "--skip-chars", "--check-chars"}, nil); len(ops) > 1 {
			out = append(out, ops[1])
		}
	case "xxd":
		if ops := xxdOperands(args); len(ops) > 1 {
			out = append(out, ops[1])
		}
	case "tree":
		out = treeOutputs(args)
	case "sed":
		out = sedInPlace(args)
	case "file":
		var magic []value
		getopt(args, "efFmP", []string{"--exclude", "--exclude-quiet", "--files-from", "--separator",
			"--magic-file", "--parameter"}, func(opt string, v value) {
			if opt == "-m" || opt == "--magic-file" {
				magic = append(magic, v)
			}
		})
		compile := fileCompiles(args)
		if !compile {
			break
		}
		for _, m := range magic {
			for _, f := range strings.Split(m.s, ":") {
				if f != "" {
					v := m
					v.s = path.Base(f) + ".mgc" // libmagic's mkdbname drops the directory
					out = append(out, v)
				}
			}
		}
	}
	var files []value
	for _, f := range out {
		if f.s != "-" && f.s != "" {
			files = append(files, f)
		}
	}
	return files
}

// fileCompiles reports file -C (--compile).
func fileCompiles(args []value) bool {
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
			if a == "--compile" || abbreviates(a, "--compile") {
				return true
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				if a[j] == 'C' {
					return true
				}
				if strings.IndexByte("efFmP", a[j]) >= 0 {
					if j+1 == len(a) {
						i++
					}
					break
				}
			}
		}
	}
	return false
}

// getopt reads a GNU getopt_long command line whose short options in
// valuedShort and long options in valuedLong (or their abbreviations)
// take a value, attached or as the next word: it hands each option's value
// to opt ("-o", or the long option's full name) and returns the operands.
func getopt(args []value, valuedShort string, valuedLong []string, opt func(string, value)) []value {
	if opt == nil {
		opt = func(string, value) {}
	}
	var ops []value
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return append(ops, args[i+1:]...)
		case strings.HasPrefix(a.s, "--"):
			name, val, attached := strings.Cut(a.s, "=")
			for _, l := range valuedLong {
				if name != l && !abbreviates(name, l) {
					continue
				}
				v, ok := optionValue(args, &i, a, val, attached)
				if !ok {
					return ops
				}
				opt(l, v)
				break
			}
		case len(a.s) > 1 && a.s[0] == '-':
			for j := 1; j < len(a.s); j++ {
				if strings.IndexByte(valuedShort, a.s[j]) < 0 {
					continue
				}
				v := a
				switch {
				case j+1 < len(a.s):
					v.s = a.s[j+1:]
				case i+1 < len(args):
					i++
					v = args[i]
				default:
					return ops
				}
				opt("-"+a.s[j:j+1], v)
				break
			}
		default:
			ops = append(ops, a)
		}
	}
	return ops
}

// xxdOperands are xxd's infile and outfile: its options are whole words
// (-ps, -cols 8, -c8), those in the list below take the next word unless
// the value is attached, and -- ends them.
func xxdOperands(args []value) []value {
	for i := 0; i < len(args); i++ {
		switch a := args[i].s; {
		case a == "--":
			return args[i+1:]
		case a == "-" || !strings.HasPrefix(a, "-"):
			return args[i:] // xxd stops reading options at the first operand
		case valued(a, "-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-offset",
			"-s", "-seek", "-R"):
			i++
		}
	}
	return nil
}

// treeOutputs are the files tree -o writes. tree reads each short option
// of a bundle in turn; -L, -P, -I, -H, -T and -o take the next words, in
// order. A value attached to -o counts as well, to be safe.
func treeOutputs(args []value) []value {
	var out []value
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "--":
			return out
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && takesValue(a, "--charset", "--filelimit", "--timefmt", "--sort",
				"--hintro", "--houtro", "--infofile", "--gitfile") {
				i++
			}
		case len(a) > 1 && a[0] == '-':
			next := i
			for j := 1; j < len(a); j++ {
				if strings.IndexByte("LPIHTo", a[j]) < 0 {
					continue
				}
				if a[j] == 'o' && j+1 < len(a) {
					v := args[i]
					v.s = a[j+1:]
					out = append(out, v)
				}
				if next+1 < len(args) {
					next++
					if a[j] == 'o' {
						out = append(out, args[next])
					}
				}
			}
			i = next
		}
	}
	return out
}

// sedInPlace are the files sed -i (--in-place) rewrites: its operands
// other than the script, when no -e or -f gives one (sedScripts reads the
// same grammar).
func sedInPlace(args []value) []value {
	inPlace, given := false, false
	var ops []value
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, attached := strings.Cut(a, "=")
			switch {
			case name == "--in-place" || abbreviates(name, "--in-place"):
				inPlace = true
			case takesValue(name, "--expression", "--file"):
				given = true
				if !attached {
					i++
				}
			case takesValue(name, "--line-length") && !attached:
				i++
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				if a[j] == 'i' {
					inPlace = true
					break // -i[SUFFIX]
				}
				if a[j] == 'e' || a[j] == 'f' || a[j] == 'l' {
					given = given || a[j] != 'l'
					if j+1 == len(a) {
						i++
					}
					break
				}
			}
		default:
			ops = append(ops, args[i])
		}
	}
	if !inPlace {
		return nil
	}
	if !given && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}
