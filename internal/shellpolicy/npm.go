package shellpolicy

import (
	"encoding/json"
	"path"
	"strings"
)

// npm, pnpm and yarn run a package.json script through the shell (npm test
// runs pretest, test and posttest), so the script is classified as a
// makefile's recipe is (make.go): a package.json this command line wrote is
// judged in full; the project's own, on disk, carries a hard block over (a
// script of `rm -rf ~` blocks `npm test` as it would the line itself); one
// whose content the classifier cannot see is a hold.

// scriptName is the package.json script a package manager's command line
// runs, false when it runs none the classifier follows (packageDir takes
// the options before the command off first).
func scriptName(manager string, args []value) (string, bool) {
	if len(args) == 0 || !args[0].known || strings.HasPrefix(args[0].s, "-") {
		return "", false
	}
	switch cmd := args[0].s; {
	case cmd == "run" || cmd == "run-script" || manager == "npm" && (cmd == "rum" || cmd == "urn"):
		if len(args) < 2 || !args[1].known || strings.HasPrefix(args[1].s, "-") {
			return "", false
		}
		return args[1].s, true
	case cmd == "test" || cmd == "t" || cmd == "tst":
		return "test", true
	case cmd == "start" || cmd == "stop" || cmd == "restart":
		return cmd, true
	case manager != "npm":
		return cmd, true // pnpm build, yarn lint: a script of that name, when there is one
	}
	return "", false
}

// packageScript classifies the script manager's command line runs.
func (c *classifier) packageScript(manager string, args []value) {
	dir, args := c.packageDir(manager, args)
	script, ok := scriptName(manager, args)
	if !ok || dir == "" {
		return
	}
	p := path.Join(dir, "package.json")
	what := manager + " run " + script
	if w, ok := c.files[p]; ok {
		switch src := w.source(); {
		case src.download:
			c.flag(Blocked, "runs a script from a downloaded package.json ("+what+")")
		case src.file:
			if b, read := readSmall(src.path); read {
				c.packageScripts(string(b), script, what, false)
			}
		case !src.visible:
			c.flag(Explicit, what+" runs a script from a package.json whose content the classifier cannot see")
		default:
			c.packageScripts(src.text, script, what, true)
		}
		return
	}
	if c.changedFile(p, what) {
		return
	}
	if b, read := readSmall(p); read {
		c.packageScripts(string(b), script, what, false)
	}
}

// packageDir is the directory whose package.json the command line reads
// (npm --prefix DIR, pnpm -C/--dir DIR, yarn --cwd DIR, before the
// command), and the arguments after those options; "" when unknown.
// Flags without a value are passed over; any other option before the
// command leaves the directory unknown (npm -w, pnpm --filter).
func (c *classifier) packageDir(manager string, args []value) (string, []value) {
	dir := c.cwd
	for len(args) > 0 && strings.HasPrefix(args[0].s, "-") {
		a := args[0]
		name, val, joined := strings.Cut(a.s, "=")
		dirOpt := manager == "npm" && name == "--prefix" || manager == "pnpm" && (name == "-C" || name == "--dir") ||
			manager == "yarn" && name == "--cwd"
		switch {
		case !a.known:
			return "", args
		case dirOpt && joined:
			dir, args = c.dirIn(dir, val), args[1:]
		case dirOpt && len(args) > 1 && args[1].known:
			dir, args = c.dirIn(dir, args[1].s), args[2:]
		case name == "--silent" || name == "-s" || name == "--quiet" || name == "-q" || name == "--if-present" ||
			name == "--no-color" || name == "--color" || joined && (name == "--loglevel" || name == "--color"):
			args = args[1:]
		default:
			return "", args
		}
	}
	return dir, args
}

// dirIn is p (~ expanded) resolved in dir; "" when dir is unknown and p
// relative.
func (c *classifier) dirIn(dir, p string) string {
	if p = c.tilde(p); dir == "" && !path.IsAbs(p) {
		return ""
	}
	return absIn(dir, p)
}

// packageScripts classifies script and its pre and post scripts in the
// package.json text: in full when this command line wrote the text, else
// only for a hard block.
func (c *classifier) packageScripts(text, script, what string, full bool) {
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if err := json.Unmarshal([]byte(text), &pkg); err != nil {
		if full {
			c.flag(Explicit, what+" runs a script from a package.json the classifier cannot read ("+err.Error()+")")
		}
		return
	}
	for _, name := range []string{"pre" + script, script, "post" + script} {
		s, ok := pkg.Scripts[name].(string)
		switch {
		case !ok:
		case full:
			c.nested(s, what)
		default:
			c.scanText("sh", s, what)
		}
	}
}
