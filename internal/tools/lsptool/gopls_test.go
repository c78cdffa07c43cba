package lsptool

import (
	"context"
	"encoding/json"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// goplsEnv is a workspace holding a copy of the standard library's
// container/list as a module of its own, the lsp tool over the installed
// gopls, and the gopls binary for the CLI side of the differentials.
type goplsEnv struct {
	ws, gopls string
	tool      *Tool
	tc        *tools.Context
}

func newGoplsEnv(t *testing.T) *goplsEnv {
	t.Helper()
	bin := e2e.LSPServer(t, "gopls")
	goBin, err := exec.LookPath("go")
	if err != nil {
		e2e.Missing(t, "go is not on PATH (gopls runs it)")
	}
	out, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src", "container", "list")
	for _, name := range []string{"list.go", "list_test.go", "example_test.go"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), `"container/list"`, `"example.com/list"`))
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/list\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := lsp.Builtins()[0]
	srv.Command, srv.Builtin = bin, false
	m := lsp.New(lsp.Options{Config: lsp.Config{Enabled: true, Wait: 30 * time.Second, Servers: []lsp.Server{srv}},
		Workspace: ws, LookPath: exec.LookPath})
	t.Cleanup(m.Close)
	return &goplsEnv{ws: ws, gopls: bin, tool: New(m), tc: &tools.Context{Workspace: ws}}
}

// call runs the lsp tool with in and returns its result.
func (e *goplsEnv) call(t *testing.T, in map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(in)
	res, err := tools.Execute(context.Background(), e.tool, e.tc, raw)
	if err != nil {
		t.Fatalf("lsp %s: %v", raw, err)
	}
	return res
}

// cli runs the gopls command line in the workspace.
func (e *goplsEnv) cli(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(e.gopls, args...)
	cmd.Dir = e.ws
	out, err := cmd.Output()
	return string(out), err == nil
}

// idents are every thirtieth identifier of file as (line, byte column, name).
func idents(t *testing.T, path string) [][3]any {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
	var out [][3]any
	for n := 0; ; {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT {
			if n%30 == 7 {
				p := fset.Position(pos)
				out = append(out, [3]any{p.Line, p.Column, lit})
			}
			n++
		}
	}
}

// place is path:line:col with col in characters, from gopls CLI output
// (byte columns) or the tool's (character columns).
type place struct {
	path      string
	line, col int
}

// cliPlaces reads `path:line:col-…` at the start of each of out's lines
// that has one, converting the byte column to characters.
func cliPlaces(t *testing.T, out string, first bool) []place {
	t.Helper()
	var ps []place
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(l, ":", 4)
		if len(f) < 3 {
			continue
		}
		line, err1 := strconv.Atoi(f[1])
		col, err2 := strconv.Atoi(strings.SplitN(f[2], "-", 2)[0])
		if err1 != nil || err2 != nil {
			continue
		}
		ps = append(ps, place{f[0], line, charCol(t, f[0], line, col)})
		if first {
			break
		}
	}
	return ps
}

func charCol(t *testing.T, path string, line, byteCol int) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(string(data), "\n")[line-1]
	return utf8.RuneCountInString(l[:min(byteCol-1, len(l))]) + 1
}

// toolPlaces reads the tool's `path:line:col: text` lines after its header.
func (e *goplsEnv) toolPlaces(res tools.Result) []place {
	var ps []place
	lines := strings.Split(res.Content, "\n")
	for _, l := range lines[1:] {
		f := strings.SplitN(l, ":", 4)
		line, _ := strconv.Atoi(f[1])
		col, _ := strconv.Atoi(f[2])
		p := f[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.ws, p)
		}
		ps = append(ps, place{p, line, col})
	}
	return ps
}

func sortPlaces(ps []place) {
	slices.SortFunc(ps, func(a, b place) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		if a.line != b.line {
			return a.line - b.line
		}
		return a.col - b.col
	})
}
