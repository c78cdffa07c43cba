package run

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// runner is how a workspace's tests are run.
type runner struct {
	ecosystem string // go, cargo, node, python, make, custom
	program   string // run directly, no shell, unless shell is set
	args      []string
	shell     string // a configured command, run with the user's shell
	newParser func() parser
	// stdoutFromParser means the parser renders stdout (go test -json).
	stdoutFromParser bool
}

// display is the command as the result reports it.
func (r runner) display() string {
	if r.shell != "" {
		return r.shell
	}
	words := append([]string{r.program}, r.args...)
	for i, w := range words {
		if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
			words[i] = q
		}
	}
	return strings.Join(words, " ")
}

// detectTests picks the test runner for the workspace root: a configured
// command first, then Go, Cargo, a package.json test script, pytest, and a
// Makefile test target. ok is false when nothing fits.
func (t *Tool) detectTests(ws string, args []string, allFeatures bool) (runner, bool) {
	text := func() parser { return newTextParser() }
	switch {
	case t.opts.TestCommand != "":
		cmd := t.opts.TestCommand
		for _, a := range args {
			q, _ := syntax.Quote(a, syntax.LangBash)
			cmd += " " + q
		}
		return runner{ecosystem: "custom", shell: cmd, newParser: text}, true
	case exists(ws, "go.mod"):
		goArgs := append([]string{"test", "-json"}, args...)
		if !namesPackages(args) {
			goArgs = append(goArgs, "./...")
		}
		return runner{ecosystem: "go", program: "go", args: goArgs, stdoutFromParser: true,
			newParser: func() parser { return newGoParser() }}, true
	case exists(ws, "Cargo.toml"):
		cargoArgs := []string{"test"}
		if allFeatures {
			cargoArgs = append(cargoArgs, "--all-features")
		}
		return runner{ecosystem: "cargo", program: "cargo", args: append(cargoArgs, args...), newParser: text}, true
	}
	if pm, ok := nodeTestScript(ws); ok {
		nodeArgs := []string{"test"}
		if pm == "npm" && len(args) > 0 {
			nodeArgs = append(nodeArgs, "--")
		}
		return runner{ecosystem: "node", program: pm, args: append(nodeArgs, args...), newParser: text}, true
	}
	if pytestSignals(ws) {
		return runner{ecosystem: "python", program: t.python(), args: append([]string{"-m", "pytest"}, args...), newParser: text}, true
	}
	if makeTestTarget(ws) {
		return runner{ecosystem: "make", program: "make", args: append([]string{"test"}, args...), newParser: text}, true
	}
	return runner{}, false
}

// namesPackages reports whether go test arguments already name packages.
func namesPackages(args []string) bool {
	for _, a := range args {
		if a == "." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasSuffix(a, "/...") {
			return true
		}
	}
	return false
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// packageJSON is the part of package.json the tool reads.
type packageJSON struct {
	Scripts        map[string]string `json:"scripts"`
	PackageManager string            `json:"packageManager"`
}

func readPackageJSON(ws string) (packageJSON, error) {
	var p packageJSON
	raw, err := os.ReadFile(filepath.Join(ws, "package.json"))
	if err != nil {
		return p, err
	}
	err = json.Unmarshal(raw, &p)
	return p, err
}

// meaningfulScript is a script that does something: npm init's placeholder
// test script only fails.
func meaningfulScript(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && !strings.Contains(s, "Error: no test specified")
}

// nodeTestScript returns the package manager when package.json has a real
// test script.
func nodeTestScript(ws string) (string, bool) {
	p, err := readPackageJSON(ws)
	if err != nil || !meaningfulScript(p.Scripts["test"]) {
		return "", false
	}
	return packageManager(ws, p), true
}

// packageManager picks npm, pnpm, yarn or bun from the lockfile, then the
// packageManager field.
func packageManager(ws string, p packageJSON) string {
	for _, c := range []struct{ lock, pm string }{
		{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"}, {"package-lock.json", "npm"},
	} {
		if exists(ws, c.lock) {
			return c.pm
		}
	}
	for _, pm := range []string{"pnpm", "yarn", "bun"} {
		if strings.HasPrefix(p.PackageManager, pm+"@") {
			return pm
		}
	}
	return "npm"
}

// pytestSignals reports a pytest configuration or test files pytest would
// collect at the root or under tests/.
func pytestSignals(ws string) bool {
	if exists(ws, "pytest.ini") || exists(ws, "conftest.py") {
		return true
	}
	for file, section := range map[string]string{"pyproject.toml": "[tool.pytest", "setup.cfg": "[tool:pytest]", "tox.ini": "[pytest]"} {
		if raw, err := os.ReadFile(filepath.Join(ws, file)); err == nil && strings.Contains(string(raw), section) {
			return true
		}
	}
	for _, dir := range []string{ws, filepath.Join(ws, "tests"), filepath.Join(ws, "test")} {
		for _, pattern := range []string{"test_*.py", "*_test.py"} {
			if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
				return true
			}
		}
	}
	return false
}

var reMakeTest = lazyre.New(`^test\s*::?(?:[^=]|$)`)

// makeTestTarget reports a Makefile with a `test` target.
func makeTestTarget(ws string) bool {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		f, err := os.Open(filepath.Join(ws, name))
		if err != nil {
			continue
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if reMakeTest().MatchString(sc.Text()) {
				return true
			}
		}
		return false
	}
	return false
}
