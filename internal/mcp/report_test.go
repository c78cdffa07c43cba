package mcp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteStatuses(t *testing.T) {
	t.Parallel()
	sts := []Status{
		{Name: "broken", State: StateFailed, Transport: "stdio", Target: "sh -c x", Required: true,
			Error: "the server exited during startup (exit status 2)", StderrTail: "line1\nboom"},
		{Name: "everything", State: StateConnected, Transport: "stdio", Target: "node e stdio",
			Tools: []ToolInfo{{Name: "echo", ModelName: "mcp_everything_echo"}}},
		{Name: "r", State: StateDisabled, Transport: "http", Target: "http://h/mcp", Warnings: []string{`unknown key "x" ignored`}},
	}
	var b bytes.Buffer
	WriteStatuses(&b, "/p/mcp.json", nil, sts)
	want := `MCP config: /p/mcp.json
broken      failed        stdio  -          sh -c x
    required: yes
    error: the server exited during startup (exit status 2)
    stderr (last lines):
      | line1
      | boom
everything  connected     stdio  1 tool     node e stdio
r           disabled      http   -          http://h/mcp
    warning: unknown key "x" ignored
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	WriteStatuses(&b, "/p/mcp.json", errors.New("MCP config /p/mcp.json: invalid JSON at line 1, column 2"), nil)
	if b.String() != "MCP config: /p/mcp.json\nerror: MCP config /p/mcp.json: invalid JSON at line 1, column 2\n" {
		t.Errorf("config error rendering: %q", b.String())
	}
}

func TestValidateAndWriteChecks(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	doc := `{"servers": {"ok": {"command": "x"}, "off": {"url": "http://h/", "enabled": false}, "bad": {"args": []}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := Validate(path, Project{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if WriteChecks(&b, v) {
		t.Error("a server with a problem must fail validation")
	}
	want := "MCP config: " + path + `
  bad: error: missing "command" (stdio server) or "url" (HTTP server)
  off: ok (disabled)
  ok: ok
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
