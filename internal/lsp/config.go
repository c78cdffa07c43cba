// Package lsp runs the session's language servers (ARCHITECTURE.md §1): one
// per (server, project root), started on the first file of its language and
// shut down with the session. It syncs the files the agent reads and
// changes, collects their diagnostics after every edit and answers the
// `lsp` tool's questions (CONTRACT.md §6.13).
//
// The protocol types are powernap's copy of gopls' generated LSP 3.17
// types; the wire is sourcegraph/jsonrpc2, which powernap itself uses.
// Neither powernap's Client nor its transport is used: the Client starts a
// server with the agent's whole environment, advertises capabilities it
// does not implement and logs server output through slog, and the
// transport's router dereferences a request's params without checking them,
// so a server that sends a request without params would crash the agent
// (ARCHITECTURE.md §7 has the evaluation).
package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Server is one language server: how to start it and which files it takes.
type Server struct {
	Name    string
	Command string
	Args    []string
	// Languages are LSP language identifiers (go, python, typescript …);
	// Extensions are file suffixes with the dot (".go"). A file is the
	// server's when its extension is listed or its language is.
	Languages  []string
	Extensions []string
	// RootMarkers name the files whose nearest directory above an edited
	// file is the server's project root; none found: the workspace.
	RootMarkers []string
	// Env is added, KEY=VALUE, to the scrubbed environment it starts with.
	Env []string
	// InitOptions is the initialize request's initializationOptions.
	InitOptions any
	// Builtin servers are used only when their command is found on PATH.
	Builtin bool
	// prepare adjusts a built-in server's start once its binary is known
	// (typescript-language-server's tsserver); an error leaves it unused.
	prepare func(bin string, s *Server) error
}

// Config is the [lsp] table as the manager uses it.
type Config struct {
	Enabled bool
	// Wait bounds how long an edit waits for its diagnostics
	// (poll_after_edit_ms).
	Wait time.Duration
	// MaxPerFile and MaxTotal cap the diagnostics one result lists.
	MaxPerFile, MaxTotal int
	// IncludeWarnings lists warnings beside errors.
	IncludeWarnings bool
	// Servers are the configured servers, user entries first, merged
	// over the built-in defaults by name (Merge).
	Servers []Server
}

// Defaults of the [lsp] table.
const (
	DefaultWait       = 1500 * time.Millisecond
	DefaultMaxPerFile = 10
	DefaultMaxTotal   = 40
)

// Builtins are the servers used when they are on PATH (README "Language
// servers"). Their options keep a server from running the project's own
// code just because one of its files was read: rust-analyzer's build
// scripts, proc macros and check-on-save are off, and
// typescript-language-server is pointed at a TypeScript installed beside
// it, never the workspace's node_modules.
func Builtins() []Server {
	return []Server{
		{Name: "gopls", Command: "gopls", Languages: []string{"go"}, RootMarkers: []string{"go.work", "go.mod"}, Builtin: true},
		{Name: "rust-analyzer", Command: "rust-analyzer", Languages: []string{"rust"},
			RootMarkers: []string{"Cargo.toml", "rust-project.json"}, Builtin: true,
			InitOptions: map[string]any{"cargo": map[string]any{"buildScripts": map[string]any{"enable": false}},
				"procMacro": map[string]any{"enable": false}, "checkOnSave": false}},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Languages: []string{"python"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}, Builtin: true},
		{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Languages:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}, Builtin: true, prepare: pinTSServer},
		{Name: "clangd", Command: "clangd", Languages: []string{"c", "cpp"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}, Builtin: true},
	}
}

// Merge lays user servers over the built-ins: a user entry named like a
// built-in replaces the fields it sets and keeps the rest; other user
// entries come first, in the order given. An entry of its own needs a
// command and the files it takes.
func Merge(user []Server) ([]Server, error) {
	builtins := Builtins()
	var out []Server
	for _, u := range user {
		i := slices.IndexFunc(builtins, func(b Server) bool { return b.Name == u.Name })
		if i < 0 {
			if u.Command == "" || len(u.Languages)+len(u.Extensions) == 0 {
				return nil, fmt.Errorf("[lsp.servers.%s] is not a built-in server (%s), so it needs command and "+
					"languages or extensions", u.Name, strings.Join(builtinNames(), ", "))
			}
			out = append(out, u)
			continue
		}
		b := builtins[i]
		builtins = slices.Delete(builtins, i, i+1)
		out = append(out, overlay(b, u))
	}
	return append(out, builtins...), nil
}

func builtinNames() []string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	return names
}

// overlay is b with the fields u sets. A user command makes the server the
// user's: it is no longer skipped for being absent.
func overlay(b, u Server) Server {
	if u.Command != "" {
		b.Command, b.Args, b.Builtin, b.prepare = u.Command, u.Args, false, nil
	} else if u.Args != nil {
		b.Args = u.Args
	}
	if u.Languages != nil || u.Extensions != nil {
		b.Languages, b.Extensions = u.Languages, u.Extensions
	}
	if u.RootMarkers != nil {
		b.RootMarkers = u.RootMarkers
	}
	if u.Env != nil {
		b.Env = u.Env
	}
	if u.InitOptions != nil {
		b.InitOptions = u.InitOptions
	}
	return b
}

// languageIDs maps a file extension to its LSP language identifier.
var languageIDs = map[string]string{
	".go": "go", ".rs": "rust", ".py": "python", ".pyi": "python",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
}

// handles reports whether s takes path, and the language id to open it as.
func (s *Server) handles(path string) (string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return "", false
	}
	lang := languageIDs[ext]
	if slices.Contains(s.Extensions, ext) {
		if lang == "" && len(s.Languages) > 0 {
			lang = s.Languages[0]
		}
		if lang == "" {
			lang = ext[1:]
		}
		return lang, true
	}
	return lang, lang != "" && slices.Contains(s.Languages, lang)
}

// Describe is the server's files for a person: ".go" or "python".
func (s *Server) Describe() string {
	return strings.Join(append(slices.Clone(s.Extensions), s.Languages...), ", ")
}
