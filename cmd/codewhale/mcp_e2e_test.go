package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace's .mcp.json is read behind the project-file trust step, and
// `mcp validate` names a ${VAR} that is not set (CONTRACT.md §12.5).
func TestMCPProjectFileTrustAndVariables(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	doc := `{"mcpServers": {"docs": {"url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${CW_E2E_DOCS_TOKEN}"}}}}`
	if err := os.WriteFile(filepath.Join(c.ws, ".mcp.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args []string
		env  string
		code int
		want string
	}{
		{[]string{"mcp", "validate"}, "", 1, "not trusted (its servers do not start)"},
		{[]string{"mcp", "validate"}, "", 1, "docs: error: defined in " + filepath.Join(c.ws, ".mcp.json") + ", which is not trusted yet"},
		{[]string{"mcp", "validate", "--no-project-config"}, "", 0, "no servers configured"},
		{[]string{"mcp", "trust"}, "", 0, "Trusted " + filepath.Join(c.ws, ".mcp.json") + ": its 1 server(s) (docs)"},
		{[]string{"mcp", "validate"}, "", 1, "docs: error: environment variable CW_E2E_DOCS_TOKEN is not set"},
		{[]string{"mcp", "validate"}, "CW_E2E_DOCS_TOKEN=tok", 0, "docs: ok"},
	}
	for _, s := range steps {
		cmd := c.command(s.args...)
		if s.env != "" {
			cmd.Env = append(append([]string(nil), c.env...), s.env)
		}
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if code != s.code || !strings.Contains(string(out), s.want) {
			t.Errorf("%v (%s): exit %d (want %d)\n%s\nwant %q", s.args, s.env, code, s.code, out, s.want)
		}
	}
}
