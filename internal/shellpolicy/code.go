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

// grammar is an interpreter's option syntax, as its own parser reads it.
// Single-letter switches: code takes an inline program, file a program
// file, arg another argument (each the rest of the word when there is
// one, else the next word), rest the rest of the word only, digits
// optional octal digits (or, after a colon, the rest), one a single
// letter; after a stop switch the words are the program's.
// Any other letter is a flag, and with bundle set the word goes on
// (perl -lne, python -IBc, gawk -be). Long options (--name=VALUE or
// --name VALUE) are looked up in long, by unique prefix when abbrev is set
// (getopt_long). words are whole words of a grammar without bundling
// (node -pe). keepScanning judges every code option on the line, the
// program's own arguments included, for a grammar whose valued options
// are too many to list.
type grammar struct {
	code, file, arg, rest, digits, one, stop string
	bundle, abbrev, keepScanning             bool
	long, words                              map[string]byte // 'c' code, 'f' file, 'a' argument, 'm' module, 0 flag
}

var grammars = map[string]*grammar{
	// python: -c and -m end the options; -W and -X take one.
	"python": {code: "c", arg: "mWX", stop: "cm", bundle: true, long: map[string]byte{"check-hash-based-pycs": 'a'}},
	// perl: -e may follow other switches (-lne) and be given again;
	// -0 and -l take digits, -i -M -m -x -d -D -F -V -C the rest.
	"perl": {code: "eE", arg: "I", rest: "iMmxdDFVC", digits: "0l", bundle: true},
	// ruby: as perl; -K takes one letter, -0 and -W digits (-W:NAME).
	"ruby": {code: "e", arg: "IrCE", rest: "ixF", digits: "0W", one: "K", bundle: true, long: map[string]byte{
		"encoding": 'a', "external-encoding": 'a', "internal-encoding": 'a', "enable": 'a', "disable": 'a'}},
	// gawk's getopt string F:f:v:W;bcCd::D::e:E:ghi:l:L::nNo::Op::MPrSstVYZ:
	// (mawk's options are a subset; -W NAME is --NAME).
	"awk": {code: "e", file: "fEi", arg: "FvlZW", rest: "dDLop", bundle: true, abbrev: true, long: map[string]byte{
		"source": 'c', "file": 'f', "exec": 'f', "include": 'f', "assign": 'a', "field-separator": 'a', "load": 'a',
		"bignum": 0, "characters-as-bytes": 0, "copyright": 0, "csv": 0, "debug": 0, "dump-variables": 0,
		"gen-pot": 0, "help": 0, "lint": 0, "lint-old": 0, "no-optimize": 0, "non-decimal-data": 0, "optimize": 0,
		"persist": 0, "posix": 0, "pretty-print": 0, "profile": 0, "re-interval": 0, "sandbox": 0,
		"traditional": 0, "trace": 0, "use-lc-numeric": 0, "version": 0}},
	// node: -e, -p and -pe as words; the last program given wins, so each
	// is judged, and a word starting with - is never one.
	"node": {keepScanning: true, words: map[string]byte{"-e": 'c', "-p": 'c', "-pe": 'c', "-r": 'a', "-C": 'a'},
		long: map[string]byte{"eval": 'c', "print": 'c', "require": 'a', "import": 'a', "loader": 'a',
			"experimental-loader": 'a', "conditions": 'a', "input-type": 'a', "env-file": 'a', "title": 'a'}},
	"bun":       {keepScanning: true, words: map[string]byte{"-e": 'c', "-p": 'c'}, long: map[string]byte{"eval": 'c', "print": 'c'}},
	"php":       {code: "r"},
	"lua":       {code: "e", arg: "l"},
	"luajit":    {code: "e", arg: "l"},
	"Rscript":   {words: map[string]byte{"-e": 'c'}},
	"osascript": {words: map[string]byte{"-e": 'c'}},
}

// interpLine is an interpreter's command line read by its grammar.
type interpLine struct {
	code   []value // inline programs, in order
	files  []value // program files an option names (awk -f, gawk -i)
	module []value // python -m NAME ARGS…: a module of the project runs
	script *value  // the first operand, when no option gave the program
}

// readInterp reads args by g.
func readInterp(g *grammar, args []value) interpLine {
	var l interpLine
	take := func(i int, kind byte, v value) bool { // reports whether the words end here
		switch kind {
		case 'c':
			l.code = append(l.code, v)
		case 'f':
			l.files = append(l.files, v)
		case 'm':
			l.module = append([]value{v}, args[i+1:]...)
			return true
		}
		return false
	}
	// next returns the word after i as an option's argument.
	next := func(i *int) (value, bool) {
		if *i+1 >= len(args) || g.keepScanning && len(args[*i+1].s) > 1 && args[*i+1].s[0] == '-' {
			return value{}, false
		}
		*i++
		return args[*i], true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		s := a.s
		if kind, ok := g.words[s]; ok {
			if v, ok := next(&i); ok && kind != 0 && take(i, kind, v) {
				return l
			}
			continue
		}
		switch {
		case s == "--":
			if i+1 < len(args) && l.script == nil {
				l.script = &args[i+1]
			}
			return l
		case a.proc != nil || len(s) < 2 || s[0] != '-':
			if l.script == nil {
				l.script = &args[i]
			}
			if !g.keepScanning {
				return l
			}
		case s[1] == '-':
			if g.longOption(s[2:], &i, args, take, next) {
				return l
			}
		case g.bundle || len(g.code+g.file+g.arg+g.rest+g.digits) > 0:
			if g.switches(a, &i, args, take, next) {
				return l
			}
		}
	}
	return l
}

// longOption reads --name[=value]; it reports whether the words end.
func (g *grammar) longOption(opt string, i *int, args []value, take func(int, byte, value) bool,
	next func(*int) (value, bool)) bool {
	name, val, hasVal := strings.Cut(opt, "=")
	kind, ok := g.long[name]
	if !ok && g.abbrev {
		found := 0
		for n, k := range g.long {
			if strings.HasPrefix(n, name) && name != "" {
				kind, found = k, found+1
			}
		}
		ok = found == 1
	}
	if !ok || kind == 0 {
		return false
	}
	v := args[*i]
	if hasVal {
		v.s = val
	} else if v, ok = next(i); !ok {
		return false
	}
	return take(*i, kind, v)
}

// switches reads a word of single-letter switches.
func (g *grammar) switches(a value, i *int, args []value, take func(int, byte, value) bool,
	next func(*int) (value, bool)) bool {
	s := a.s
	for j := 1; j < len(s); j++ {
		ch := s[j]
		var kind byte
		switch {
		case strings.IndexByte(g.code, ch) >= 0:
			kind = 'c'
		case strings.IndexByte(g.file, ch) >= 0:
			kind = 'f'
		case strings.IndexByte(g.arg, ch) >= 0:
			kind = 'a'
			if ch == 'm' && g.stop != "" {
				kind = 'm'
			}
		case strings.IndexByte(g.rest, ch) >= 0,
			strings.IndexByte(g.digits, ch) >= 0 && j+1 < len(s) && (s[j+1] == 'x' || s[j+1] == ':'):
			return false // the rest of the word is its argument (perl -0xHEX, ruby -W:NAME)
		case strings.IndexByte(g.digits, ch) >= 0:
			for j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '7' {
				j++
			}
			continue
		case strings.IndexByte(g.one, ch) >= 0:
			j++
			continue
		default:
			if !g.bundle {
				return false
			}
			continue
		}
		v := a
		if j+1 < len(s) {
			v.s = s[j+1:]
		} else if nv, ok := next(i); ok {
			v = nv
		} else {
			return false
		}
		if ch == 'W' && kind == 'a' && g.abbrev { // gawk -W NAME: --NAME
			args[*i] = v
			return g.longOption(v.s, i, args, take, next)
		}
		return take(*i, kind, v) || strings.IndexByte(g.stop, ch) >= 0
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
	g := grammars[lang]
	if g == nil {
		g = &grammar{}
	}
	l := readInterp(g, append([]value(nil), args...))
	for _, f := range l.files {
		if lang == "awk" {
			c.awkFile(f, stdin, name)
		} else {
			c.runFile(lang, f.s, name+" "+f.s)
		}
	}
	for _, code := range l.code {
		c.inline(lang, name, code)
	}
	switch {
	case len(l.module) > 0:
		if l.module[0].s == "pytest" {
			c.pytest(l.module[1:])
		}
		return // runs a module
	case len(l.code) > 0 || len(l.files) > 0:
		return // the operands are the program's arguments or input
	case l.script == nil:
		c.fromStdinAs(lang, name, stdin)
	case lang == "awk" && l.script.s != "-":
		c.inline(lang, name, *l.script) // the program's text
	case stdinPath(l.script.s):
		c.fromStdinAs(lang, name, stdin)
	case l.script.proc != nil:
		c.runCode(lang, *l.script.proc, name)
	default:
		c.runFile(lang, l.script.s, name+" "+l.script.s)
	}
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
	for _, f := range codeWrites(lang, code) {
		c.writtenFile(lit(f))
	}
	for _, s := range append(stringLiterals(code), quoteLike(lang, code)...) {
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

// The calls of inline code that write the file a string literal names,
// each with the path in its last group: open(PATH, MODE) (Python, Ruby,
// PHP fopen, node's openSync) with a mode that writes (w, a, x or +);
// the writers that take the path first (node's fs.writeFile* and
// appendFile*, createWriteStream, PHP file_put_contents, Ruby File.write,
// Deno.writeTextFile, Bun.write); pathlib's Path(PATH).write_text,
// write_bytes, touch and open("w"); perl's open(FH, ">PATH") and
// open(FH, ">", PATH) (>>, +<, +> too); awk's print > "PATH" and >>.
var (
	openMode = lazyre.New(`\b(?:f?open|openSync)\s*\(\s*(?:file\s*=\s*)?[rbuRBU]?(['"\x60])([^'"\x60]+)['"\x60]\s*,\s*` +
		`(?:mode\s*=\s*|flags\s*:\s*)?[rbRB]?['"\x60]([^'"\x60]*)['"\x60]`)
	writeCall = lazyre.New(`\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|outputFileSync|` +
		`outputFile|file_put_contents|writeTextFileSync|writeTextFile|Bun\.write|File\.write|File\.binwrite|IO\.write|` +
		`IO\.binwrite)\s*\(\s*[rbRB]?(['"\x60])([^'"\x60]+)['"\x60]`)
	pathWrite = lazyre.New(`\bPath\(\s*[rbRB]?(['"])([^'"]+)['"]\s*\)\s*\.(?:write_text|write_bytes|touch|` +
		`open\(\s*(?:mode\s*=\s*)?['"][^'"r]*[wax+])`)
	perlOpen2 = lazyre.New(`\b(?:sys)?open\s*\(?\s*(?:my\s+|local\s+|our\s+)?[$\w:]+\s*,\s*(['"])\s*(?:\+?>>?|\+<)\s*([^'"]+?)\s*['"]`)
	perlOpen3 = lazyre.New(`\bopen\s*\(?\s*(?:my\s+|local\s+|our\s+)?[$\w:]+\s*,\s*['"](?:\+?>>?|\+<)(?::[^'"]*)?['"]\s*,\s*` +
		`(['"])([^'"]+)['"]`)
	awkOut = lazyre.New(`>>?\s*(")([^"]+)"`)
)

// codeWrites are the files inline code writes, by the string literals its
// writing calls name (what code reads stays a read).
func codeWrites(lang, code string) []string {
	var out []string
	add := func(ms [][]string) {
		for _, m := range ms {
			out = append(out, m[2])
		}
	}
	switch lang {
	case "awk":
		add(awkOut().FindAllStringSubmatch(code, 64))
		return out
	case "perl":
		add(perlOpen2().FindAllStringSubmatch(code, 64))
		add(perlOpen3().FindAllStringSubmatch(code, 64))
	}
	for _, m := range openMode().FindAllStringSubmatch(code, 64) {
		if strings.ContainsAny(m[3], "wax+") {
			out = append(out, m[2])
		}
	}
	add(writeCall().FindAllStringSubmatch(code, 64))
	add(pathWrite().FindAllStringSubmatch(code, 64))
	return out
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

var (
	perlQuote = lazyre.New(`(?:^|[^\w$@%&:>-])q[qwx]?\s*([^\w\s=,;)])`)
	rubyQuote = lazyre.New(`%[xqQwWiI]?([^\w\s=])`)
	luaLong   = lazyre.New(`\[(=*)\[`)
	tclExec   = lazyre.New(`(?:^|[\s;\[])exec\s`)
)

// quoteLike returns the texts of a language's other string forms, which
// its calls run as commands as they do quoted strings: perl's q qq qw qx
// (qx{rm -rf ~} runs a command as `…` does), ruby's %x %q %Q %w %W %(…),
// lua's long strings ([[…]], [==[…]==]) and the commands tcl's exec runs,
// whose words are written without quotes.
func quoteLike(lang, code string) []string {
	var out []string
	switch lang {
	case "perl", "ruby":
		re := perlQuote()
		if lang == "ruby" {
			re = rubyQuote()
		}
		for _, m := range re.FindAllStringSubmatchIndex(code, 256) {
			if s, _ := delimited(code, m[2]); s != "" {
				out = append(out, s)
			}
		}
	case "lua", "luajit":
		for _, m := range luaLong().FindAllStringSubmatchIndex(code, 256) {
			close := "]" + code[m[2]:m[3]] + "]"
			if s, _, ok := strings.Cut(code[m[1]:], close); ok {
				out = append(out, s)
			}
		}
	case "tclsh":
		for _, m := range tclExec().FindAllStringIndex(code, 256) {
			out = append(out, tclCommand(code[m[1]:]))
		}
	}
	return out
}

// delimited reads the text quoted by the delimiter at code[i] (brackets
// nest); end is past the closing one.
func delimited(code string, i int) (text string, end int) {
	open, close := code[i], code[i]
	if k := strings.IndexByte("([{<", open); k >= 0 {
		close = ")]}>"[k]
	}
	depth := 0
	for j := i + 1; j < len(code); j++ {
		switch code[j] {
		case '\\':
			j++
		case close:
			if depth == 0 {
				return code[i+1 : j], j + 1
			}
			depth--
		case open:
			depth++
		}
	}
	return code[i+1:], len(code)
}

// tclCommand spells the words of a tcl command (up to the end of its line,
// a ; or a ]) as a shell command: {…} and "…" are one word each, a bare
// word is literal (tcl's exec expands no ~), $env(NAME) is $NAME, and
// exec's own options are dropped.
func tclCommand(s string) string {
	var words []string
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t':
			i++
			continue
		case ch == '\n' || ch == ';' || ch == ']':
			return strings.Join(words, " ")
		case ch == '{':
			w, end := delimited(s, i)
			words, i = append(words, shellQuote(w)), end
			continue
		}
		j, w := i, ""
		if s[i] == '"' {
			w, j = literalAt(s, i)
		} else {
			for j < len(s) && !strings.ContainsRune(" \t\n;]", rune(s[j])) {
				j++
			}
			w = s[i:j]
		}
		i = j
		if len(words) == 0 && strings.HasPrefix(w, "-") {
			continue // -ignorestderr, -keepnewline, --
		}
		q := func(s string) string {
			if s == "" {
				return ""
			}
			return shellQuote(s)
		}
		parts := strings.Split(w, "$env(")
		for k := range parts {
			name, rest, ok := strings.Cut(parts[k], ")")
			switch {
			case k == 0:
				parts[k] = q(parts[k])
			case ok && isName(name):
				parts[k] = `"${` + name + `}"` + q(rest)
			default:
				parts[k] = q("$env(" + parts[k])
			}
		}
		if w = strings.Join(parts, ""); w == "" {
			w = "''"
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
