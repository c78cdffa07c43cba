package shellpolicy

import (
	"strings"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// lang names the interpreter family of a command, or "".
func lang(name string) string {
	switch {
	case strings.HasPrefix(name, "python") && strings.Trim(name[len("python"):], "0123456789.") == "",
		name == "pypy" || name == "pypy3":
		return "python"
	case name == "perl" || name == "ruby" || name == "php" || name == "lua" || name == "luajit" ||
		name == "Rscript" || name == "osascript" || name == "deno" || name == "bun" || name == "tclsh":
		return name
	case name == "node" || name == "nodejs":
		return "node"
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		return "awk"
	}
	return ""
}

// inlineFlag reports the flag that passes a program on the command line.
func inlineFlag(lang, a string) bool {
	switch lang {
	case "python":
		return a == "-c"
	case "perl":
		return a == "-e" || a == "-E"
	case "node", "bun":
		return a == "-e" || a == "--eval" || a == "-p" || a == "--print"
	case "php":
		return a == "-r"
	case "ruby", "lua", "luajit", "Rscript", "osascript":
		return a == "-e"
	}
	return false
}

// interp classifies an interpreter call: inline code is read, a script
// file is ordinary work, code from a pipe is judged as runCode does.
func (c *classifier) interp(lang, name string, args []value, stdin *source) {
	c.atLeast(Ordinary)
	if lang == "deno" && len(args) > 0 && args[0].s == "eval" {
		args = append([]value{lit("-e")}, args[1:]...)
		lang = "node"
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case inlineFlag(lang, a.s) || lang == "awk" && !strings.HasPrefix(a.s, "-"):
			code := a
			if lang != "awk" {
				if i+1 >= len(args) {
					return
				}
				code = args[i+1]
			}
			c.inline(lang, name, code)
			return
		case lang == "awk" && (a.s == "-f" || a.s == "--file"):
			if i+1 < len(args) {
				c.awkFile(args[i+1], stdin, name)
			}
			return
		case lang == "awk" && (a.s == "-v" || a.s == "-F"):
			i++
		case lang == "python" && (a.s == "-m" || a.s == "-W" || a.s == "-X"):
			if a.s == "-m" {
				if i+1 < len(args) && args[i+1].s == "pytest" {
					c.pytest(args[i+2:])
				}
				return // runs a module
			}
			i++
		case (lang == "perl" || lang == "ruby") && (a.s == "-I" || a.s == "-r"):
			i++
		case lang == "node" && (a.s == "-r" || a.s == "--require"):
			i++
		case stdinPath(a.s):
			c.fromStdinAs(lang, name, stdin)
			return
		case strings.HasPrefix(a.s, "-"):
		case a.proc != nil:
			c.runCode(lang, *a.proc, name)
			return
		default:
			c.runFile(lang, a.s, name+" "+a.s)
			return
		}
	}
	c.fromStdinAs(lang, name, stdin)
}

// awkFile classifies awk -f PROG: a program from stdin or one this
// command line wrote is read; one on disk carries a hard block over.
func (c *classifier) awkFile(f value, stdin *source, name string) {
	switch {
	case f.proc != nil:
		c.runCode("awk", *f.proc, name+" -f")
	case !f.known:
		c.flag(Explicit, name+" -f runs a program the classifier cannot see ("+f.text()+")")
	case stdinPath(f.s):
		c.fromStdinAs("awk", name, stdin)
	default:
		c.runFile("awk", f.s, name+" -f "+f.s)
	}
}

func (c *classifier) fromStdinAs(lang, name string, stdin *source) {
	if stdin != nil {
		c.runCode(lang, *stdin, name)
	}
}

func (c *classifier) inline(lang, name string, code value) {
	switch {
	case code.download:
		c.flag(Blocked, "runs downloaded code ("+name+" -c \"$(curl …)\")")
	case !code.known:
		c.flag(Explicit, name+" runs inline code the classifier cannot see ("+code.text()+")")
	default:
		c.code(lang, code.s, name)
	}
}

var (
	deletion = lazyre.New(`\b(?:rmtree|rm_rf|rm_r|remove_dir_all|removedirs|rmSync|rmdirSync|rimraf(?:\.sync)?|` +
		`remove_tree|rmdir|unlink|rm)\s*\(\s*(?:r?(['"])([^'"]*)['"]|(os\.path\.expanduser\(\s*['"]~/?['"]\s*\)|` +
		`(?:pathlib\.)?Path\.home\(\)|(?:os\.)?homedir\(\)|os\.environ\[\s*['"]HOME['"]\s*\]|` +
		`os\.getenv\(\s*['"]HOME['"]\s*\)|process\.env\.HOME|ENV\[\s*['"]HOME['"]\s*\]|Dir\.home|\$ENV\{\s*['"]?HOME['"]?\s*\}))`)
	pathCall   = lazyre.New(`Path\(\s*r?['"]([^'"]*)['"]\s*\)\s*\.(?:rmdir|unlink)|shutil\.rmtree\(\s*Path\(\s*r?['"]([^'"]*)['"]`)
	codeFork   = lazyre.New(`fork\s+while\s+fork|while\s*\(?\s*(?:1|true|True)\s*\)?\s*[:{]?\s*(?:os\.)?fork\s*\(`)
	listArgv   = lazyre.New(`(?:(['"])([\w./-]+)['"]\s*,\s*)?\[\s*((?:r?['"][^'"]*['"]\s*,\s*)+r?['"][^'"]*['"])\s*,?\s*\]`)
	quotedItem = lazyre.New(`['"]([^'"]*)['"]`)
	envRoot    = lazyre.New(`os\.environb?|os\.getenv|process\.env|\bENV\b|%ENV|\$ENV\{|\bgetenv\s*\(|Sys\.getenv|\$_ENV|\$_SERVER`)
	envName    = lazyre.New(`^(?:\s*(?:\.get\s*\(|\[|\.fetch\s*\(|\(|\{)\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?|\.([A-Za-z_][A-Za-z0-9_]*))`)
)

// code reads an inline program where it is visible: deleting / or the
// home directory, fork bombs, shell commands spelled in its strings, secret
// paths and the environment it reads.
func (c *classifier) code(lang, code, what string) {
	c.atLeast(Ordinary)
	c.dynamicCode(lang, code, what)
	code = spellOut(lang, code)
	c.deletes(code, what)
	for _, s := range stringLiterals(code) {
		c.shellString(s, what)
		c.pathArg(lit(s), false)
		if abs := c.absPath(s); !c.containsWorkspace(abs) && abs != "/" {
			c.changed(lit(s)) // open("s.sh", "w"): a file it may write
		}
		if strings.Contains(s, "(") {
			c.deletes(spellOut(lang, s), what) // code in a string that exec or eval runs
		}
	}
	for _, m := range listArgv().FindAllStringSubmatch(code, -1) {
		var argv []string
		if m[2] != "" {
			argv = append(argv, m[2])
		}
		for _, it := range quotedItem().FindAllStringSubmatch(m[3], -1) {
			argv = append(argv, shellQuote(it[1]))
		}
		c.shellString(strings.Join(argv, " "), what)
	}
	if lang != "awk" {
		c.codeEnv(code, what)
	}
}

// deletes blocks code that deletes the filesystem root or the home
// directory, or is a fork bomb.
func (c *classifier) deletes(code, what string) {
	for _, m := range deletion().FindAllStringSubmatch(code, -1) {
		if m[3] != "" || m[1] != "" && c.catastrophic(m[2]) {
			c.flag(Blocked, "inline "+what+" code deletes the filesystem root or the home directory ("+m[0]+")")
		}
	}
	for _, m := range pathCall().FindAllStringSubmatch(code, -1) {
		if p := m[1] + m[2]; c.catastrophic(p) {
			c.flag(Blocked, "inline "+what+" code deletes the filesystem root or the home directory ("+m[0]+")")
		}
	}
	if codeFork().MatchString(code) {
		c.flag(Blocked, "inline "+what+" code is a fork bomb")
	}
}

// shellString blocks a string in inline code that is itself a hard-blocked
// shell command (os.system("rm -rf /")). Only Blocked carries over: an
// ordinary string is not evidence of anything.
func (c *classifier) shellString(s, what string) {
	if !strings.ContainsAny(s, " \t") || c.depth >= maxDepth {
		return
	}
	f, err := c.parseScript(s)
	if err != nil {
		return
	}
	sub := c.sub()
	sub.stmts(f.Stmts)
	if sub.class == Blocked {
		for _, r := range sub.reasons {
			c.flag(Blocked, "inline "+what+" code runs a blocked command: "+r)
		}
	}
}

// codeEnv flags inline code that reads a secret variable or the whole
// environment.
func (c *classifier) codeEnv(code, what string) {
	for _, loc := range envRoot().FindAllStringIndex(code, -1) {
		m := envName().FindStringSubmatch(code[loc[1]:])
		name := ""
		if m != nil {
			name = m[1] + m[2]
		}
		switch {
		case name == "" || name == "copy" || name == "items" || name == "keys" || name == "values" || name == "to_h" ||
			name == "each" || name == "to_a" || name == "inspect":
			c.flag(Explicit, "inline "+what+" code reads the whole environment, which holds secrets")
		case c.secretVar(name):
			c.flag(Explicit, "inline "+what+" code reads $"+name+", which holds a secret")
		}
	}
}

// stringLiterals returns the quoted strings of a program ('…', "…", `…`),
// bounded in number.
func stringLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 256; i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) {
				j++
			}
			b.WriteByte(code[j])
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
		i = j
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
