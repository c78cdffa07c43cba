package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// allCommands walks the built binary's command tree: every command path,
// subcommands included.
func allCommands(t *testing.T, c *cli, prefix []string) [][]string {
	t.Helper()
	out, errOut, code := c.run(append(prefix, "--help")...)
	if code != 0 || !strings.Contains(out, "Usage:") {
		t.Fatalf("%v --help: exit %d, %q %q", prefix, code, out, errOut)
	}
	paths := [][]string{prefix}
	_, after, ok := strings.Cut(out, "Available Commands:\n")
	if !ok {
		return paths
	}
	block, _, _ := strings.Cut(after, "\n\n")
	for _, l := range strings.Split(block, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "help" {
			continue
		}
		paths = append(paths, allCommands(t, c, append(append([]string(nil), prefix...), f[0]))...)
	}
	return paths
}

// Every subcommand of the built binary runs once end to end: its --help,
// and its main path (or, where the main path needs a terminal, its
// clearest refusal). A command added without a row here fails the test.
// README.md "Command line": every subcommand of the built binary runs end to end.
// README.md "Quick start": codewhale auth set reads the key from stdin into $CODEWHALE_HOME/secrets.
func TestEveryCommandEndToEnd(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Paris."), fakemodel.Text("Paris."))
	srv.ServeModels("deepseek-v4-pro", "deepseek-v4-flash") // GET /models, for the models row
	c := newCLI(t, srv)
	home := filepath.Join(c.home, ".codewhale")
	everything := e2e.MCPServerBin(t, "mcp-server-everything")
	type row struct {
		args  []string
		stdin string
		code  int
		out   string // substring of stdout+stderr
		not   string // must not appear
	}
	rows := map[string][]row{
		"":     {{args: []string{"--version"}, out: "codewhale version "}},
		"exec": {{args: []string{"exec", "capital of France?"}, out: "Paris."}, {args: []string{"exec", "--auto", "capital of France?"}, out: "Paris."}},
		"auth": {{args: []string{"auth"}, out: "Available Commands"}},
		"auth set": {{args: []string{"auth", "set"}, stdin: "sk-e2etestkey1234567\n", out: "Stored the deepseek key in " + filepath.Join(home, "secrets"),
			not: "sk-e2etestkey1234567"}},
		"auth status":           {{args: []string{"auth", "status"}, out: "api key: set, from the secret store", not: "sk-e2etestkey"}},
		"automation":            {{args: []string{"automation"}, out: "Available Commands"}},
		"automation list":       {{args: []string{"automation", "list"}, out: "No automations."}},
		"automation show":       {{args: []string{"automation", "show", "auto_00000000"}, code: 1, out: "automation not found"}},
		"automation pause":      {{args: []string{"automation", "pause", "auto_00000000"}, code: 1, out: "automation not found"}},
		"automation resume":     {{args: []string{"automation", "resume", "auto_00000000"}, code: 1, out: "automation not found"}},
		"automation delete":     {{args: []string{"automation", "delete", "auto_00000000"}, code: 1, out: "automation not found"}},
		"automation run-due":    {{args: []string{"automation", "run-due"}, out: "Nothing is due."}},
		"completion":            {{args: []string{"completion"}, out: "Available Commands"}},
		"completion bash":       {{args: []string{"completion", "bash"}, out: "bash completion"}},
		"completion zsh":        {{args: []string{"completion", "zsh"}, out: "compdef"}},
		"completion fish":       {{args: []string{"completion", "fish"}, out: "complete -c codewhale"}},
		"completion powershell": {{args: []string{"completion", "powershell"}, out: "Register-ArgumentCompleter"}},
		"mcp":                   {{args: []string{"mcp"}, out: "Available Commands"}},
		"mcp add": {{args: []string{"mcp", "add", "everything", "--", everything, "stdio"}, out: "Added MCP server 'everything'"},
			{args: []string{"mcp", "add", "broken", "--", "false"}, out: "Added MCP server 'broken'"},
			{args: []string{"mcp", "add", "--scope", "project", "proj", "-e", "K=${CW_E2E_UNSET:-x}", "--", everything, "stdio"},
				out: "(trusted with this content)"}},
		"mcp trust": {{args: []string{"mcp", "trust"}, out: "is already trusted"}},
		// Their main paths: TestMCPOAuthLoginExecLogout.
		"mcp login":    {{args: []string{"mcp", "login", "nosuch"}, code: 1, out: "no MCP server named 'nosuch'"}},
		"mcp logout":   {{args: []string{"mcp", "logout", "nosuch"}, out: "No token is stored for MCP server 'nosuch'."}},
		"mcp disable":  {{args: []string{"mcp", "disable", "broken"}, out: "Disabled MCP server 'broken'"}},
		"mcp enable":   {{args: []string{"mcp", "enable", "broken"}, out: "Enabled MCP server 'broken'"}},
		"mcp validate": {{args: []string{"mcp", "validate"}, out: "everything: ok"}},
		"mcp list":     {{args: []string{"mcp", "list"}, out: "everything"}},
		"mcp tools":    {{args: []string{"mcp", "tools", "everything"}, out: "mcp_everything_echo"}, {args: []string{"mcp", "tools", "broken"}, code: 1, out: "not connected"}},
		"mcp remove":   {{args: []string{"mcp", "remove", "broken"}, out: "Removed MCP server 'broken'"}},
		"sessions":     {{args: []string{"sessions"}, out: "capital of France?"}},
		// Their main paths: TestSessionsRenameExportArchiveDelete.
		"sessions rename":    {{args: []string{"sessions", "rename", "no-such-session", "T"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"sessions export":    {{args: []string{"sessions", "export", "no-such-session"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"sessions archive":   {{args: []string{"sessions", "archive", "no-such-session"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"sessions unarchive": {{args: []string{"sessions", "unarchive", "no-such-session"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"sessions delete":    {{args: []string{"sessions", "delete", "no-such-session"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"resume":             {{args: []string{"resume", "no-such-session"}, code: 1, out: `no saved session matches "no-such-session"`}},
		"models":             {{args: []string{"models"}, out: "deepseek-v4-pro"}},
		"tools":              {{args: []string{"tools", "--json"}, out: `"active_tool_catalog_sha256"`}},
		"doctor":             {{args: []string{"doctor"}, out: "route"}},
		// Its main paths: TestACPPromptStreamsAndCancels and the other TestACP tests.
		"acp": {{args: []string{"acp"}, stdin: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
			out: `"protocolVersion":1`}},
		// Its main paths: TestInitCommand, TestE2EInitCommandAsksAndIgnoresTypeAhead.
		"init": {{args: []string{"init"}, code: 1, out: "standard input is not a terminal; pass --yes"}},
	}
	// Order matters where one row sets up the next (exec before sessions,
	// auth set before status, mcp add before the rest).
	order := []string{"", "exec", "sessions", "sessions rename", "sessions export", "sessions archive", "sessions unarchive",
		"sessions delete", "resume", "models", "tools", "auth", "auth set", "auth status", "automation", "automation list",
		"automation show", "automation pause", "automation resume", "automation delete", "automation run-due", "completion",
		"completion bash", "completion zsh", "completion fish", "completion powershell", "mcp", "mcp add", "mcp disable",
		"mcp trust", "mcp login", "mcp logout", "mcp enable", "mcp validate", "mcp list", "mcp tools", "mcp remove", "doctor", "acp", "init"}
	for _, p := range allCommands(t, c, nil) {
		if _, ok := rows[strings.Join(p, " ")]; !ok {
			t.Errorf("command %q has no end-to-end row", strings.Join(p, " "))
		}
	}
	for _, name := range order {
		for _, r := range rows[name] {
			cmd := c.command(r.args...)
			cmd.Stdin = strings.NewReader(r.stdin)
			combined, err := cmd.CombinedOutput()
			code := 0
			if err != nil {
				code = cmd.ProcessState.ExitCode()
			}
			got := string(combined)
			if code != r.code || !strings.Contains(got, r.out) || r.not != "" && strings.Contains(got, r.not) || strings.Contains(got, "panic:") {
				t.Errorf("%v: exit %d (want %d), output %q (want %q)", r.args, code, r.code, got, r.out)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(home, "secrets", "deepseek.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("stored key: %v %v", st, err)
	}
}
