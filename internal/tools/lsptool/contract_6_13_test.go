package lsptool

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/tools"
)

// TestMain lets the test binary stand in for a language server whose
// initialize answer leaves a feature out, or that never answers a
// question: no real server does either on demand (gopls, pyright and
// typescript-language-server offer all six actions).
func TestMain(m *testing.M) {
	if mode := os.Getenv("LSPTOOL_STUB"); mode != "" {
		stubServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stubServer speaks LSP on stdin/stdout: "bare" offers no capability,
// "mute" offers hover and never answers one.
func stubServer(mode string) {
	in := bufio.NewReader(os.Stdin)
	for {
		n := 0
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		var result any
		switch msg.Method {
		case "initialize":
			caps := map[string]any{"textDocumentSync": 1}
			if mode == "mute" {
				caps["hoverProvider"] = true
			}
			result = map[string]any{"capabilities": caps}
		case "shutdown":
		case "exit":
			return
		default:
			continue // notifications; and mute never answers a question
		}
		if msg.ID == nil {
			continue
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(out), out)
	}
}

// stubTool is the lsp tool over one stub server taking *.stub files.
func stubTool(t *testing.T, mode string) (*Tool, *tools.Context) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.stub"), []byte("one two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := lsp.Server{Name: "stub", Command: os.Args[0], Extensions: []string{".stub"}, Env: []string{"LSPTOOL_STUB=" + mode}}
	m := lsp.New(lsp.Options{Config: lsp.Config{Enabled: true, Wait: 5 * time.Second, Servers: []lsp.Server{srv}},
		Workspace: ws, LookPath: exec.LookPath})
	t.Cleanup(m.Close)
	return New(m), &tools.Context{Workspace: ws}
}

// CONTRACT.md §6.13: the tool is deferred, read-only, parallel-safe, approval Auto, capability read_only; its
// actions are the six listed, in that order, and its schema is closed.
func TestContractLSPSpec(t *testing.T) {
	t.Parallel()
	tool := New(lsp.New(lsp.Options{}))
	if tool.Name() != "lsp" || !tool.DeferLoading() || !tool.ReadOnly || !tool.Parallel || tool.Approve != tools.Auto ||
		!slices.Equal(tool.Capabilities(), []tools.Capability{tools.CapReadOnly}) {
		t.Fatalf("spec %+v", tool.Spec)
	}
	s := tool.InputSchema()
	if s["additionalProperties"] != false {
		t.Errorf("additionalProperties = %v, want false", s["additionalProperties"])
	}
	raw, _ := json.Marshal(s["properties"].(map[string]any)["action"])
	var action struct{ Enum []string }
	_ = json.Unmarshal(raw, &action)
	if want := []string{"diagnostics", "definition", "references", "hover", "symbols", "rename_preview"}; !slices.Equal(action.Enum, want) {
		t.Errorf("action enum %v, want %v", action.Enum, want)
	}
}

// errKind is the refusal kind of a call, or -1 when it was not refused.
func errKind(err error) tools.ErrorKind {
	var te *tools.Error
	if errors.As(err, &te) {
		return te.Kind
	}
	return -1
}

// CONTRACT.md §6.13: columns count characters, include_declaration defaults to true, max_results defaults to 50
// and the header says when it cut the list, a place outside the workspace is an absolute path without its line's
// text, diagnostics are `<path>:<line>:<col> <severity> <source>: <message>` lines, and hover is at most 4,000
// characters.
// README.md "Language servers": the lsp tool answers diagnostics, definition, references, hover, symbols and rename_preview.
func TestContractLSPResults(t *testing.T) {
	t.Parallel()
	e := newGoplsEnv(t)
	var many strings.Builder
	many.WriteString("package list\n\nvar X int\n\nvar s, Y = \"日本語\", X\n\nfunc uses() {\n")
	for range 60 {
		many.WriteString("\t_ = X\n")
	}
	many.WriteString("}\n\n// Big is documented at length.\n//\n")
	for range 120 {
		many.WriteString("// " + strings.Repeat("word ", 12) + "\n")
	}
	many.WriteString("func Big() {}\n")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("many.go", many.String())
	write("bad.go", "package list\n\nvar Bad int = \"x\"\n")

	line5 := `var s, Y = "日本語", X`
	col := utf8.RuneCountInString(line5[:strings.LastIndex(line5, "X")]) + 1
	refs := func(in map[string]any) tools.Result {
		in["action"], in["path"], in["line"], in["symbol"] = "references", "many.go", 3, "X"
		return e.call(t, in)
	}
	def := refs(map[string]any{})
	if !def.Success || !strings.Contains(def.Content, "(the first 50; max_results lists up to 200):") ||
		strings.Count(def.Content, "\n") != 50 {
		t.Errorf("default max_results: %s", def.Content)
	}
	all := refs(map[string]any{"max_results": 200})
	noDecl := refs(map[string]any{"max_results": 200, "include_declaration": false})
	if !strings.Contains(all.Content, "many.go:3:5: var X int") || strings.Contains(noDecl.Content, "\nmany.go:3:5:") ||
		strings.Count(all.Content, "\n") != strings.Count(noDecl.Content, "\n")+1 {
		t.Errorf("include_declaration default true:\n%s\n--- false:\n%s", all.Content, noDecl.Content)
	}
	if want := fmt.Sprintf("many.go:5:%d: %s\n", col, line5); !strings.Contains(all.Content, want) {
		t.Errorf("the place after non-ASCII text: want %q in\n%s", want, all.Content)
	}

	example, _ := os.ReadFile(filepath.Join(e.ws, "example_test.go"))
	n := slices.IndexFunc(strings.Split(string(example), "\n"), func(l string) bool { return strings.Contains(l, "fmt.Println") })
	out := e.call(t, map[string]any{"action": "definition", "path": "example_test.go", "line": n + 1, "symbol": "Println"})
	lines := strings.Split(out.Content, "\n")
	if !out.Success || len(lines) != 2 || !regexp.MustCompile(`^/\S+/fmt/print\.go:\d+:\d+$`).MatchString(lines[1]) {
		t.Errorf("a definition outside the workspace: %s", out.Content)
	}

	diag := e.call(t, map[string]any{"action": "diagnostics", "path": "bad.go"})
	dl := strings.Split(diag.Content, "\n")
	if !diag.Success || dl[0] != "gopls reports 1 problem in bad.go:" || len(dl) != 2 ||
		!regexp.MustCompile(`^bad\.go:3:15 error \S+: cannot use "x"`).MatchString(dl[1]) {
		t.Errorf("diagnostics: %s", diag.Content)
	}

	hover := e.call(t, map[string]any{"action": "hover", "path": "many.go", "line": 192, "symbol": "Big"})
	if n := utf8.RuneCountInString(hover.Content); !hover.Success || n > maxHover || n < maxHover-10 ||
		!strings.Contains(hover.Content, "Big is documented at length.") || !strings.HasSuffix(hover.Content, "…") {
		t.Errorf("hover of %d characters: %.200s", n, hover.Content)
	}
}

// CONTRACT.md §6.13: rename_preview names a file outside the workspace, or a secret, and does not show its edit.
// README.md "Language servers": rename_preview shows the diff a rename would make and applies nothing.
func TestContractLSPRenameHidesOutsideAndSecrets(t *testing.T) {
	t.Parallel()
	tool, tc := stubTool(t, "bare")
	outside := filepath.Join(t.TempDir(), "far.go")
	secret := filepath.Join(tc.Workspace, ".env")
	a := &ask{tc: tc}
	if got := tool.fileDiff(a, lsp.Rename{}, lsp.FileEdit{Path: outside}, outside); got != "edit "+outside+" (outside the workspace: not shown)\n" {
		t.Errorf("outside: %q", got)
	}
	if got := tool.fileDiff(a, lsp.Rename{}, lsp.FileEdit{Path: secret}, ".env"); got != "edit .env (a secret: not shown)\n" {
		t.Errorf("secret: %q", got)
	}
}

// CONTRACT.md §6.13: a server whose initialize answer leaves a feature out gives the exact
// `lsp: <server> does not offer <what> (its initialize answer leaves it out); nothing was asked`, and one that does
// not answer in time gives `lsp: <server> could not answer <action>: <why>`.
func TestContractLSPServerFailures(t *testing.T) {
	t.Parallel()
	bare, tc := stubTool(t, "bare")
	for action, what := range map[string]string{"hover": "hover", "definition": "definition", "references": "references",
		"rename_preview": "rename"} {
		in := map[string]any{"action": action, "path": "a.stub", "line": 1, "symbol": "two"}
		if action == "rename_preview" {
			in["new_name"] = "three"
		}
		raw, _ := json.Marshal(in)
		res, err := tools.Execute(t.Context(), bare, tc, raw)
		want := "lsp: stub does not offer " + what + " (its initialize answer leaves it out); nothing was asked"
		if err != nil || res.Success || res.Content != want {
			t.Errorf("%s: %+v %v, want %q", action, res, err, want)
		}
	}
	mute, tc := stubTool(t, "mute")
	mute.wait = 2 * time.Second
	res, err := tools.Execute(t.Context(), mute, tc, []byte(`{"action":"hover","path":"a.stub","line":1,"symbol":"two"}`))
	if want := "lsp: stub could not answer hover: it did not answer within 2s"; err != nil || res.Success || res.Content != want {
		t.Errorf("a server that does not answer: %+v %v, want %q", res, err, want)
	}
}
