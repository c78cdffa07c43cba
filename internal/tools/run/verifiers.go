package run

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/gitsafe"
	"github.com/codewhale/codewhale/internal/tools"
)

// gate is one verifier: a program run without a shell, or a skip with its
// reason.
type gate struct {
	name, ecosystem string
	program         string
	args            []string
	dir             string
	display         string // command as reported; program + args when empty
	skipReason      string
	// git marks a git gate: it runs under gitsafe's configuration, so a
	// repository's fsmonitor, filter or diff driver never runs through it.
	git bool
}

// invocation is the gate's arguments and extra environment as run.
func (g gate) invocation(ctx context.Context) ([]string, []string) {
	if !g.git {
		return g.args, nil
	}
	return gitsafe.Args(g.args...), append(gitsafe.Overlay(), gitsafe.ConfigEnv(ctx, g.program, g.dir)...)
}

func (g gate) command() string {
	if g.display != "" {
		return g.display
	}
	return runner{program: g.program, args: g.args}.display()
}

// detectGates lists the gates of CONTRACT.md §6.4's table for the workspace, filtered by
// profile, plus the custom commands.
func (t *Tool) detectGates(tc *tools.Context, in input) ([]gate, error) {
	ws := tc.Workspace
	want := func(profile string) bool { return in.profile == "auto" || in.profile == profile }
	full := in.level == "full"
	var gates []gate
	add := func(name, eco string, program string, args ...string) {
		gates = append(gates, gate{name: name, ecosystem: eco, program: program, args: args, dir: ws})
	}
	if in.profile == "auto" && exists(ws, ".git") {
		add("git-whitespace", "git", "git", "diff", "--check")
		gates[len(gates)-1].git = true
	}
	if want("rust") && exists(ws, "Cargo.toml") {
		gates = append(gates, rustGates(ws, full)...)
	}
	if want("node") && exists(ws, "package.json") {
		gates = append(gates, nodeGates(ws, full)...)
	}
	if want("python") && pythonProject(ws) {
		gates = append(gates, t.pythonGates(ws, full, in.maxPythonFiles)...)
	}
	if want("go") && exists(ws, "go.mod") {
		add("go-test", "go", "go", "test", "./...")
		if full {
			add("go-vet", "go", "go", "vet", "./...")
		}
	}
	for _, c := range in.commands {
		dir, err := customDir(tc, c.Cwd)
		if err != nil {
			return nil, err
		}
		gates = append(gates, gate{name: c.Name, ecosystem: "custom", program: c.Program, args: c.Args, dir: dir})
	}
	return gates, nil
}

func customDir(tc *tools.Context, cwd string) (string, error) {
	dir, err := tc.ResolvePath(cwd)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", tools.InvalidInput("custom verifier cwd %s is not an existing directory", dir)
	}
	return dir, nil
}

func rustGates(ws string, full bool) []gate {
	var locked []string
	if exists(ws, "Cargo.lock") {
		locked = []string{"--locked"}
	}
	cargo := func(name string, args ...string) gate {
		return gate{name: name, ecosystem: "rust", program: "cargo", args: args, dir: ws}
	}
	gates := []gate{
		cargo("rust-fmt", "fmt", "--all", "--", "--check"),
		cargo("rust-metadata", append(append([]string{"metadata"}, locked...), "--format-version", "1", "--no-deps")...),
		cargo("rust-check", append([]string{"check", "--workspace", "--all-targets"}, locked...)...),
	}
	if full {
		clippy := append(append([]string{"clippy", "--workspace", "--all-targets", "--all-features"}, locked...), "--", "-D", "warnings")
		gates = append(gates, cargo("rust-clippy", clippy...),
			cargo("rust-test", append([]string{"test", "--workspace", "--all-features"}, locked...)...))
	}
	return gates
}

// nodeScripts are the package.json scripts a quick pass runs, in order.
var nodeScripts = []string{"format:check", "check", "typecheck", "lint"}

func nodeGates(ws string, full bool) []gate {
	p, err := readPackageJSON(ws)
	if err != nil {
		return []gate{{name: "node-package-json", ecosystem: "node", dir: ws, display: "read package.json",
			skipReason: fmt.Sprintf("package.json could not be parsed: %v", err)}}
	}
	scripts := nodeScripts
	if full {
		scripts = append(append([]string(nil), scripts...), "test")
	}
	pm := packageManager(ws, p)
	var gates []gate
	for _, s := range scripts {
		if meaningfulScript(p.Scripts[s]) {
			gates = append(gates, gate{name: "node-" + strings.ReplaceAll(s, ":", "-"), ecosystem: "node",
				program: pm, args: []string{"run", s}, dir: ws})
		}
	}
	return gates
}

// pythonProject reports packaging or requirements files, or Python sources
// at the root.
func pythonProject(ws string) bool {
	for _, f := range []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "tox.ini", "pytest.ini"} {
		if exists(ws, f) {
			return true
		}
	}
	m, _ := filepath.Glob(filepath.Join(ws, "*.py"))
	return len(m) > 0
}

// syntaxCheck compiles each file named on its command line without writing
// bytecode, printing every syntax error.
const syntaxCheck = `import sys
bad = 0
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    except SyntaxError as e:
        bad += 1
        print(f"{path}:{e.lineno}:{e.offset}: {e.msg}")
    except (OSError, ValueError) as e:
        bad += 1
        print(f"{path}: {e}")
print(f"checked {len(sys.argv) - 1} Python files, {bad} with errors")
sys.exit(1 if bad else 0)
`

func (t *Tool) pythonGates(ws string, full bool, limit int) []gate {
	py := t.python()
	files := pythonFiles(ws)
	g := gate{name: "python-syntax", ecosystem: "python", program: py, dir: ws,
		display: fmt.Sprintf("%s -c <compile each file> (%d files)", py, len(files))}
	if len(files) > limit {
		g.skipReason = fmt.Sprintf("found more than %d Python files (%d); raise max_python_files to verify them", limit, len(files))
	} else {
		g.args = append([]string{"-c", syntaxCheck}, files...)
	}
	gates := []gate{g}
	if full && pytestSignals(ws) {
		gates = append(gates, gate{name: "python-pytest", ecosystem: "python", program: py, args: []string{"-m", "pytest"}, dir: ws})
	}
	return gates
}

// skipDirs are never searched for Python sources: environments, caches and
// build output.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "venv", "env", "__pycache__", "build", "dist", "target", "site-packages":
		return true
	}
	return false
}

// pythonFiles lists the workspace's .py files, relative and sorted.
func pythonFiles(ws string) []string {
	var out []string
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != ws && (strings.HasPrefix(d.Name(), ".") || skipDir(d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".py") {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}
