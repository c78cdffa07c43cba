package shellpolicy

import (
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// A toolchain's options can name a program it runs: go test -exec runs
// the test binary through one, every go build runs its tools through
// -toolexec, go vet runs -vettool, the linker runs -extld; GOFLAGS gives
// the same flags through the environment. Such a value is a command, and
// is judged as the command it is: `go test -exec 'rm -rf /'` is as
// blocked as `rm -rf /`.

// goTool classifies go's command line (any subcommand: a flag go does not
// take is refused before anything runs, so reading every argument costs
// only a stricter verdict). go env -w GOFLAGS=… is the flags of every
// later go command.
func (c *classifier) goTool(args []value) {
	c.goFlags(args, "go")
	if len(args) > 1 && args[0].s == "env" && has(args[1:], "-w") {
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a.s, "GOFLAGS="); ok {
				a.s = v
				c.goFlagsVar(a, "go env -w GOFLAGS")
			}
		}
	}
}

// goFlagsVar classifies a GOFLAGS value: flags separated by spaces, each
// -name=value (cmd/go/internal/base/goflags.go).
func (c *classifier) goFlagsVar(v value, what string) {
	if !v.known {
		return // riskyVar already keeps it from being read-only
	}
	var flags []value
	for _, f := range strings.Fields(v.s) {
		flags = append(flags, lit(f))
	}
	c.goFlags(flags, what)
}

// goFlags classifies the program-valued flags among go's arguments, spelled
// as Go's flag package reads them: -name or --name, the value attached
// with = or the next argument.
func (c *classifier) goFlags(args []value, what string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.s, "-") {
			continue
		}
		name, val, attached := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a.s, "-"), "-"), "=")
		switch name {
		case "exec", "toolexec", "vettool", "fixtool", "ldflags":
		default:
			continue
		}
		v, ok := optionValue(args, &i, a, val, attached)
		if !ok {
			continue
		}
		flag := what + " -" + name
		switch name {
		case "exec", "toolexec": // base.StringsFlag: split as quoted.Split does
			c.namedProgram(flag, v, true)
		case "vettool", "fixtool": // a path, not split
			c.namedProgram(flag, v, false)
		case "ldflags":
			c.goLinkerFlags(flag, v)
		}
	}
}

// goLinkerFlags classifies the linker's -extld in an -ldflags value
// ([pattern=]flags, split as quoted.Split does, cmd/go's PerPackageFlag);
// -extld itself is split again (the linker's quoted.Flag).
func (c *classifier) goLinkerFlags(what string, v value) {
	if !v.known {
		c.flag(Explicit, what+" passes the linker flags the classifier cannot see ("+v.text()+"), which can name a "+
			"linker program to run")
		return
	}
	s := v.s
	if !strings.HasPrefix(s, "-") {
		if _, rest, ok := strings.Cut(s, "="); ok {
			s = rest
		}
	}
	fields, err := quotedSplit(s)
	if err != nil {
		return // go refuses the flag before anything runs
	}
	for i := 0; i < len(fields); i++ {
		name, val, attached := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(fields[i], "-"), "-"), "=")
		if name != "extld" || !strings.HasPrefix(fields[i], "-") {
			continue
		}
		if !attached {
			if i+1 >= len(fields) {
				continue
			}
			i++
			val = fields[i]
		}
		c.namedProgram(what+" -extld", lit(val), true)
	}
}

// namedProgram classifies v, the value of an option that names a program the
// tool runs (with its arguments when split), as that command.
func (c *classifier) namedProgram(what string, v value, split bool) {
	c.atLeast(Ordinary)
	switch {
	case v.download:
		c.flag(Blocked, "runs a program named by a download ("+what+" \"$(curl …)\")")
		return
	case !v.known:
		c.flag(Explicit, what+" runs a program the classifier cannot see ("+v.text()+")")
		return
	}
	words := []string{v.s}
	if split {
		var err error
		if words, err = quotedSplit(v.s); err != nil {
			return // the tool refuses the value before anything runs
		}
	}
	if len(words) == 0 || words[0] == "" {
		return
	}
	argv := make([]value, len(words))
	for i, w := range words {
		argv[i] = lit(w)
	}
	c.command(argv, nil)
}

// quotedSplit splits s into fields as Go's cmd/internal/quoted.Split does
// (the go command's -exec, -toolexec and -ldflags, the linker's -extld):
// fields separated by spaces, tabs and newlines, a field may be wholly
// quoted with ' or " and is then taken as is, without unescaping. The
// package is internal to the Go tree, hence this copy of its grammar.
func quotedSplit(s string) ([]string, error) {
	var f []string
	space := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	for len(s) > 0 {
		for len(s) > 0 && space(s[0]) {
			s = s[1:]
		}
		if len(s) == 0 {
			break
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, errors.New("unterminated quoted string")
			}
			f, s = append(f, s[1:1+end]), s[2+end:]
			continue
		}
		i := 0
		for i < len(s) && !space(s[i]) {
			i++
		}
		f, s = append(f, s[:i]), s[i:]
	}
	return f, nil
}

// cargo classifies the configuration cargo's command line gives it:
// --config KEY=VALUE is a TOML document, and the keys that name a program
// (a target's runner and linker, build.rustc and its wrappers, rustdoc, a
// credential provider, doc.browser) are judged as the commands they are;
// env.NAME is judged as NAME=VALUE before a command is. A --config value
// that is not TOML is a file cargo reads, which can name any program.
func (c *classifier) cargo(args []value) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			return // the test binary's or the program's arguments
		}
		if a.s != "--config" && !strings.HasPrefix(a.s, "--config=") {
			continue
		}
		v := a
		if val, ok := strings.CutPrefix(a.s, "--config="); ok {
			v.s = val
		} else if i+1 < len(args) {
			i++
			v = args[i]
		} else {
			continue
		}
		c.cargoConfig(v)
	}
}

func (c *classifier) cargoConfig(v value) {
	c.atLeast(Ordinary)
	if !v.known {
		c.flag(Explicit, "cargo --config sets configuration the classifier cannot see ("+v.text()+"), which can "+
			"make cargo run a program")
		return
	}
	var doc map[string]any
	if strings.HasSuffix(v.s, ".toml") || toml.Unmarshal([]byte(v.s), &doc) != nil {
		c.flag(Explicit, "cargo --config reads configuration from a file ("+v.s+"), which can make cargo run a program")
		return
	}
	c.cargoTable(doc, nil)
}

// cargoTable walks a --config document, path the keys above it.
func (c *classifier) cargoTable(t map[string]any, keys []string) {
	for k, x := range t {
		path := append(keys[:len(keys):len(keys)], k)
		what := "cargo --config " + strings.Join(path, ".")
		switch {
		case len(path) == 2 && path[0] == "env":
			if s, ok := cargoEnvValue(x); ok {
				c.assigned(k, lit(s))
			}
		case cargoProgramKey(k):
			if argv, ok := cargoArgv(x); ok {
				words := make([]value, len(argv))
				for i, w := range argv {
					words[i] = lit(w)
				}
				if len(words) > 0 && words[0].s != "" {
					c.command(words, nil)
				}
			} else {
				c.flag(Explicit, what+" names a program in a form the classifier does not read")
			}
		default:
			if sub, ok := x.(map[string]any); ok {
				c.cargoTable(sub, path)
			}
		}
	}
}

// cargoProgramKey reports a cargo configuration key whose value is a
// program cargo runs (The Cargo Book, "Configuration").
func cargoProgramKey(k string) bool {
	switch k {
	case "runner", "linker", "rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc", "credential-provider",
		"global-credential-providers", "browser":
		return true
	}
	return false
}

// cargoArgv is a program value as cargo reads it: a string split on
// whitespace, or an array of strings.
func cargoArgv(x any) ([]string, bool) {
	switch x := x.(type) {
	case string:
		return strings.Fields(x), true
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// cargoEnvValue is an [env] entry's value: a string, or a table with one.
func cargoEnvValue(x any) (string, bool) {
	switch x := x.(type) {
	case string:
		return x, true
	case map[string]any:
		s, ok := x["value"].(string)
		return s, ok
	}
	return "", false
}

// pytest classifies the options of pytest's command line (pytest, py.test,
// python -m pytest) that name code it loads or a directory it removes, as
// goFlags does go's: -p loads a plugin module, -c/--config-file is the
// configuration (its addopts are more options), --rootdir decides which
// conftest.py files load (up to it) and where the cache is written, and
// --basetemp is removed before the run, so it is judged as the rm -rf it
// is. A plugin, configuration or root the classifier cannot see is a hold.
// More options arrive three more ways, each judged as these: -o/
// --override-ini addopts=…, the PYTEST_ADDOPTS variable (both split as
// Python's shlex does), and @FILE (pytest 8.2 and later read one option per
// line from it, wherever it stands). pytest takes no abbreviated long
// options (argparse allow_abbrev=False).
func (c *classifier) pytest(args []value) {
	c.atLeast(Ordinary)
	if c.depth >= maxDepth {
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	paths := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a.s, "@") || !a.known && strings.HasPrefix(a.text(), "@") {
			c.pytestArgFile(a)
			continue
		}
		if a.s == "--" {
			paths = true
		}
		if paths {
			continue // the rest are paths, but for @FILE
		}
		var name string
		v := a
		switch {
		case a.s == "-p" || a.s == "-c" || a.s == "--config-file" || a.s == "--rootdir" || a.s == "--basetemp" ||
			a.s == "-o" || a.s == "--override-ini":
			if i+1 >= len(args) {
				return
			}
			name, v = a.s, args[i+1]
			i++
		case strings.HasPrefix(a.s, "-p") || strings.HasPrefix(a.s, "-c") || strings.HasPrefix(a.s, "-o"):
			name, v.s = a.s[:2], a.s[2:]
		case strings.HasPrefix(a.s, "--config-file=") || strings.HasPrefix(a.s, "--rootdir=") ||
			strings.HasPrefix(a.s, "--basetemp=") || strings.HasPrefix(a.s, "--override-ini="):
			name, v.s, _ = strings.Cut(a.s, "=")
		default:
			continue
		}
		what := "pytest " + name
		switch {
		case name == "-o" || name == "--override-ini":
			key, val, _ := strings.Cut(v.s, "=")
			switch {
			case v.known && strings.TrimSpace(key) != "addopts":
			case v.known:
				v.s = val
				c.pytestOptions(v, what+" addopts")
			case v.download:
				c.flag(Blocked, what+" sets an ini value from a download ("+v.text()+")")
			default:
				c.flag(Explicit, what+" sets an ini value the classifier cannot see ("+v.text()+"), which can be "+
					"addopts: more options")
			}
		case name == "--basetemp":
			c.command([]value{lit("rm"), lit("-rf"), lit("--"), v}, nil)
		case v.download:
			c.flag(Blocked, what+" names code to load from a download ("+v.text()+")")
		case !v.known && name == "-p":
			c.flag(Explicit, what+" loads a plugin the classifier cannot see ("+v.text()+")")
		case !v.known && name == "--rootdir":
			c.flag(Explicit, what+" loads conftest.py files up to a directory the classifier cannot see ("+v.text()+")")
		case !v.known:
			c.flag(Explicit, what+" reads a configuration the classifier cannot see ("+v.text()+"), whose options "+
				"can load a plugin or remove a directory")
		}
	}
}

// pytestOptions classifies a string pytest splits into more options
// (PYTEST_ADDOPTS, -o addopts=…) with shlex.
func (c *classifier) pytestOptions(v value, what string) {
	c.atLeast(Ordinary)
	switch {
	case v.download:
		c.flag(Blocked, what+" gives pytest options from a download")
		return
	case !v.known:
		c.flag(Explicit, what+" gives pytest options the classifier cannot see ("+v.text()+"), which can load a "+
			"plugin or remove a directory")
		return
	}
	words, err := shlexSplit(v.s)
	if err != nil {
		return // pytest refuses the value before anything runs
	}
	args := make([]value, len(words))
	for i, w := range words {
		args[i] = lit(w)
	}
	c.pytest(args)
}

// pytestArgFile classifies @FILE on pytest's command line: argparse reads
// the file and puts each of its lines in the argument's place.
func (c *classifier) pytestArgFile(a value) {
	what := "pytest " + a.text()
	if !a.known {
		c.flag(Explicit, what+" reads options from a file the classifier cannot see, which can load a plugin or "+
			"remove a directory")
		return
	}
	abs := c.absPath(strings.TrimPrefix(a.s, "@"))
	var text string
	if w, ok := c.files[abs]; ok {
		src := w.source()
		switch {
		case src.download:
			c.flag(Blocked, what+" reads options from a download")
			return
		case src.file:
			b, read := readSmall(src.path)
			if !read {
				c.flag(Explicit, what+" reads options from a file the classifier cannot read")
				return
			}
			text = string(b)
		case !src.visible:
			c.flag(Explicit, what+" reads options from a file whose content the classifier cannot see")
			return
		default:
			text = src.text
		}
	} else {
		if c.changedFile(abs, what) {
			return
		}
		b, read := readSmall(abs)
		if !read {
			if fileExists(abs) {
				c.flag(Explicit, what+" reads options from a file the classifier cannot read")
			}
			return // pytest stops: no such file
		}
		text = string(b)
	}
	var args []value
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		args = append(args, lit(line))
	}
	c.pytest(args)
}

// shlexSplit splits s as Python's shlex.split does (POSIX mode, which
// pytest uses for addopts and PYTEST_ADDOPTS): fields separated by
// whitespace; a backslash outside quotes takes the next character as is;
// '…' is taken as is; inside "…" a backslash escapes only \ and ". An
// unclosed quote or a trailing backslash is an error, as in shlex.
func shlexSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			if in {
				out, in = append(out, cur.String()), false
				cur.Reset()
			}
		case b == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("no escaped character")
			}
			i++
			cur.WriteByte(s[i])
			in = true
		case b == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("no closing quotation")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i, in = i+1+j, true
		case b == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("no closing quotation")
			}
			in = true
		default:
			cur.WriteByte(b)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
