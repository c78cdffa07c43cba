package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigEditsKeepOtherKeysAndOrder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	orig := `{
  "comment": "mine",
  "mcpServers": {
    "zeta": {"command": "z", "custom": 1},
    "alpha": {"command": "a", "disabled": true}
  },
  "timeouts": {"connect_timeout": 3}
}`
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error {
			return AddServer(path, "new", NewServer{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X": "y"}})
		},
		func() error { return SetEnabled(path, "alpha", true) },
		func() error { return SetEnabled(path, "zeta", false) },
		func() error { return RemoveServer(path, "new") },
		func() error { return AddServer(path, "fs", NewServer{Command: "npx", Args: []string{"-y", "pkg"}}) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "comment": "mine",
  "mcpServers": {
    "zeta": {
      "command": "z",
      "custom": 1,
      "enabled": false
    },
    "alpha": {
      "command": "a",
      "enabled": true
    },
    "fs": {
      "command": "npx",
      "args": [
        "-y",
        "pkg"
      ]
    }
  },
  "timeouts": {
    "connect_timeout": 3
  }
}
`
	if string(data) != want {
		t.Errorf("file after edits:\n%s\nwant:\n%s", data, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the original 0640", st.Mode().Perm())
	}
	cfg, err := LoadConfig(path)
	if err != nil || cfg.Servers["zeta"].IsEnabled() || !cfg.Servers["alpha"].IsEnabled() {
		t.Fatalf("reloaded: %v %+v", err, cfg)
	}
}

func TestConfigEditRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "sub", "mcp.json")
	if err := AddServer(fresh, "a", NewServer{Command: "x"}); err != nil {
		t.Fatalf("creating a new file: %v", err)
	}
	if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", st, err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"servers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"duplicate", AddServer(fresh, "a", NewServer{Command: "y"}), "server 'a' already exists"},
		{"unusable entry", AddServer(fresh, "b", NewServer{}), `missing "command" (stdio server) or "url" (HTTP server)`},
		{"remove unknown", RemoveServer(fresh, "zz"), "no MCP server named 'zz'"},
		{"enable unknown", SetEnabled(fresh, "zz", true), "no MCP server named 'zz'"},
		{"malformed file", SetEnabled(broken, "a", true), "fix the file before editing it"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, c.err, c.want)
		}
	}
	if data, _ := os.ReadFile(broken); string(data) != `{"servers": {` {
		t.Error("a malformed file must be left untouched")
	}
}
