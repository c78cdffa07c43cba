package lsp

import (
	"reflect"
	"strings"
	"testing"
)

// README.md "Language servers": the built-ins are gopls, rust-analyzer,
// `pyright-langserver --stdio`, `typescript-language-server --stdio` and
// clangd, and rust-analyzer is started with its build scripts, proc macros
// and check-on-save off, so reading a file runs none of the project's code.
func TestREADMEBuiltinCommandsAndRustAnalyzerRunsNoProjectCode(t *testing.T) {
	t.Parallel()
	var got []string
	for _, s := range Builtins() {
		got = append(got, strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")))
		if s.Name != "rust-analyzer" {
			continue
		}
		want := map[string]any{"cargo": map[string]any{"buildScripts": map[string]any{"enable": false}},
			"procMacro": map[string]any{"enable": false}, "checkOnSave": false}
		if !reflect.DeepEqual(s.InitOptions, want) {
			t.Errorf("rust-analyzer initialization options %v, want %v", s.InitOptions, want)
		}
	}
	if want := []string{"gopls", "rust-analyzer", "pyright-langserver --stdio", "typescript-language-server --stdio", "clangd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("built-in commands %q, want %q", got, want)
	}
}
