package config_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
)

// README.md "Language servers": [lsp.servers.<name>] takes command, args, extensions or languages, root_markers, env and initialization_options.
func TestLSPTable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write(t, filepath.Join(home, "config.toml"), `
[lsp]
poll_after_edit_ms = 2500
max_diagnostics_per_file = 5
include_warnings = true
[lsp.servers.gopls]
args = ["-remote=auto"]
[lsp.servers.zls]
command = "zls"
extensions = [".zig"]
root_markers = ["build.zig"]
env = { ZIG_DEBUG = "1", A = "b" }
initialization_options = { enable_snippets = false }
`)
	c, err := config.Load(config.Flags{Workspace: t.TempDir()}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.LSPConfig{Enabled: true, PollAfterEdit: 2500 * time.Millisecond, MaxPerFile: 5, IncludeWarnings: true,
		Servers: []config.LSPServer{{Name: "gopls", Args: []string{"-remote=auto"}}, {Name: "zls", Command: "zls",
			Extensions: []string{".zig"}, RootMarkers: []string{"build.zig"}, Env: []string{"A=b", "ZIG_DEBUG=1"},
			InitOptions: map[string]any{"enable_snippets": false}}}}
	if !reflect.DeepEqual(c.LSP, want) {
		t.Fatalf("got  %+v\nwant %+v", c.LSP, want)
	}
}

// README.md "Language servers": [lsp] defaults to enabled, poll_after_edit_ms 1500 (0..60000), max_diagnostics_per_file 10 (1..1000), include_warnings false.
func TestLSPDefaultsAndBadValues(t *testing.T) {
	t.Parallel()
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (config.LSPConfig{Enabled: true, PollAfterEdit: 1500 * time.Millisecond, MaxPerFile: 10}); !reflect.DeepEqual(c.LSP, want) {
		t.Fatalf("defaults: %+v", c.LSP)
	}
	for body, want := range map[string]string{
		"[lsp]\npoll_after_edit_ms = -1\n":                           "poll_after_edit_ms = -1: use 0 to 60000",
		"[lsp]\nmax_diagnostics_per_file = 0\n":                      "max_diagnostics_per_file = 0: use 1 to 1000",
		"[lsp.servers.x]\ncommand = \"x\"\nextensions = [\"zig\"]\n": `"zig" is not a file extension; write it with its dot (".zig")`,
		"[lsp]\nenabeld = true\n":                                    `unknown key "lsp.enabeld" (did you mean "enabled"?)`,
	} {
		home := t.TempDir()
		write(t, filepath.Join(home, "config.toml"), body)
		_, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}

// A project may switch its language servers off, never name one to run.
// README.md "Language servers": a project's .codewhale/config.toml may only set enabled = false.
func TestProjectLSPOnlyTightens(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "[lsp.servers.gopls]\ncommand = \"./evil\"\n")
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.LSP.Enabled || len(c.LSP.Servers) != 0 {
		t.Fatalf("a project named a server: %+v", c.LSP)
	}
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "[lsp]\nenabled = false\n")
	if c, err = config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home})); err != nil || c.LSP.Enabled {
		t.Fatalf("enabled = false in the project: %+v %v", c.LSP, err)
	}
}
