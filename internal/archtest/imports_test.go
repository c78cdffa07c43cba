package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/codewhale/codewhale"

// forbidden lists, per part, the parts it must never reach, directly or
// through another package (docs/ARCHITECTURE.md, "Allowed arrows"). A part
// is a package and everything below it.
var forbidden = []struct{ from, to string }{
	{"internal/tools", "internal/engine"},
	{"internal/tools", "internal/catalog"},
	{"internal/tools", "internal/tui"},
	{"internal/tools", "internal/app"},
	{"internal/tools", "internal/toolset"},
	{"internal/provider", "internal/engine"},
	{"internal/provider", "internal/tools"},
	{"internal/provider", "internal/tui"},
	{"internal/engine", "internal/tui"},
	{"internal/engine", "internal/app"},
	{"internal/engine", "internal/toolset"},
	{"internal/mcp", "internal/tui"},
	{"internal/mcp", "internal/engine"},
	{"internal/catalog", "internal/engine"},
	{"internal/prompt", "internal/engine"},
	{"internal/prompt", "internal/tui"},
	{"internal/catalog", "internal/tui"},
	{"internal/session", "internal/tui"},
	{"internal/config", "internal/engine"},
	{"internal/config", "internal/tui"},
	{"internal/tui", "internal/app"},
	{"internal/acp", "internal/app"},
	{"internal/acp", "internal/tui"},
	{"internal/approvalcard", "internal/tui"},
	{"internal/tui", "internal/toolset"},
}

type pkg struct {
	ImportPath     string
	Dir            string
	Standard       bool
	DepOnly        bool
	Deps           []string
	GoFiles        []string
	TestGoFiles    []string
	XTestGoFiles   []string
	IgnoredGoFiles []string
}

var listed struct {
	once sync.Once
	pkgs []pkg
	err  error
}

// packages is `go list -deps -json ./...` from the module root, read once.
func packages(t *testing.T) []pkg {
	t.Helper()
	listed.once.Do(func() {
		cmd := exec.Command("go", "list", "-deps", "-json", "./...")
		cmd.Dir = filepath.Join("..", "..")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			listed.err = errors.New("go list: " + err.Error() + ": " + stderr.String())
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p pkg
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				listed.err = err
				return
			}
			listed.pkgs = append(listed.pkgs, p)
		}
	})
	if listed.err != nil {
		t.Fatal(listed.err)
	}
	return listed.pkgs
}

// within reports whether import path p is part rel of the module or below it.
func within(p, rel string) bool {
	root := module + "/" + rel
	return p == root || strings.HasPrefix(p, root+"/")
}

// TestAllowedArrows fails on any production import that runs against the
// architecture; test files may import what they need to drive real parts.
func TestAllowedArrows(t *testing.T) {
	t.Parallel()
	n := 0
	for _, p := range packages(t) {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		n++
		for _, rule := range forbidden {
			if !within(p.ImportPath, rule.from) {
				continue
			}
			for _, d := range p.Deps {
				if within(d, rule.to) {
					t.Errorf("%s reaches %s (%s must not import %s, directly or indirectly)",
						strings.TrimPrefix(p.ImportPath, module+"/"), strings.TrimPrefix(d, module+"/"), rule.from, rule.to)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d project packages listed; the rule checked nothing", n)
	}
}

// TestImportGrouping checks the house layout of import blocks: the
// standard library's group comes first, then a blank line, then the other
// imports; no group mixes the two.
func TestImportGrouping(t *testing.T) {
	t.Parallel()
	files := 0
	for _, p := range packages(t) {
		if p.DepOnly || p.Standard || !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, list := range [][]string{p.GoFiles, p.TestGoFiles, p.XTestGoFiles, p.IgnoredGoFiles} {
			for _, name := range list {
				if !strings.HasSuffix(name, ".go") {
					continue
				}
				files++
				if msg := checkGrouping(filepath.Join(p.Dir, name)); msg != "" {
					t.Error(msg)
				}
			}
		}
	}
	if files < 100 {
		t.Fatalf("only %d files checked", files)
	}
}

// checkGrouping returns a complaint about path's imports, or "".
func checkGrouping(path string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
	if err != nil {
		return err.Error()
	}
	rel := path
	if root, err := filepath.Abs(filepath.Join("..", "..")); err == nil {
		if r, err := filepath.Rel(root, path); err == nil {
			rel = r
		}
	}
	lastLine, groupStd, seenOther := -1, false, false
	for i, spec := range f.Imports {
		line := fset.Position(spec.Pos()).Line
		std := isStd(strings.Trim(spec.Path.Value, `"`))
		newGroup := i == 0 || line > lastLine+1
		lastLine = fset.Position(spec.End()).Line
		switch {
		case newGroup:
			if std && seenOther {
				return rel + ": a standard-library import group follows other imports; put the standard library first"
			}
			groupStd = std
		case std != groupStd:
			return rel + ": " + spec.Path.Value + " shares a group with imports of the other kind; separate the standard library with a blank line"
		}
		if !std {
			seenOther = true
		}
	}
	return ""
}

// isStd reports whether an import path belongs to the standard library: its
// first element has no dot (module paths of other code always do).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
