package mcp

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseConfigFileErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json, want string
	}{
		{"trailing comma", "{\n  \"servers\": {\"a\": {\"command\": \"x\"},}\n}", "invalid JSON at line 2, column 37"},
		{"truncated", "{\n  \"servers\": {\n", "line 2, column 15: the file ends early"},
		{"not an object", `["servers"]`, "line 1, column 1: expected map[string]json.RawMessage, found a JSON array"},
		{"servers not an object", `{"servers": []}`, `"servers" must be an object mapping server names to server settings`},
		{"both spellings", `{"servers": {}, "mcpServers": {}}`, `both "servers" and "mcpServers" are set`},
		{"bad timeouts", `{"timeouts": {"connect_timeout": "10"}}`, `"timeouts": "connect_timeout" must be a number of seconds; got "10"`},
		{"negative timeout", `{"timeouts": {"execute_timeout": -1}}`, `"execute_timeout" must be between 0 and 86400 seconds; got -1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseConfig("/home/u/.codewhale/mcp.json", []byte(c.json))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			if !strings.HasPrefix(err.Error(), "MCP config /home/u/.codewhale/mcp.json: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %q, want it to name the file and contain %q", err, c.want)
			}
		})
	}
}

// README.md "MCP servers": mcp.json entries take command, args, env, url and headers, under "servers" or Claude Code's "mcpServers".
func TestParseConfigServers(t *testing.T) {
	t.Parallel()
	doc := `{
	  "timeouts": {"connect_timeout": 5, "execute_timeout": 30},
	  "mcpServers": {
	    "fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"A": "1"},
	           "execute_timeout": 2.5, "enabled_tools": ["read_file"], "required": true},
	    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"X-Org": "o"},
	               "env_headers": {"X-Key": "MY_KEY"}, "bearer_token_env_var": "TOKEN"},
	    "legacy": {"url": "http://127.0.0.1:9/sse", "transport": "sse"},
	    "typed": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
	    "off": {"command": "x", "enabled": false},
	    "none": {},
	    "both": {"command": "x", "url": "http://h/"},
	    "weird": {"command": "x", "transport": "sse"},
	    "typo": {"command": "x", "comand": "y"},
	    "argsbad": {"command": "x", "args": "a b"}
	  }
	}`
	cfg, err := ParseConfig("mcp.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Timeouts != (Timeouts{Connect: 5 * time.Second, Execute: 30 * time.Second, Read: DefaultReadTimeout}) {
		t.Errorf("timeouts = %+v", cfg.Timeouts)
	}
	fs := cfg.Servers["fs"]
	if fs.Transport != TransportStdio || !reflect.DeepEqual(fs.Args, []string{"-y", "server-filesystem", "/tmp"}) ||
		fs.Env["A"] != "1" || !fs.Required || !fs.ToolEnabled("read_file") || fs.ToolEnabled("write_file") {
		t.Errorf("fs = %+v", fs)
	}
	if got := cfg.Effective(fs); got != (Timeouts{Connect: 5 * time.Second, Execute: 2500 * time.Millisecond, Read: DefaultReadTimeout}) {
		t.Errorf("effective fs timeouts = %+v", got)
	}
	cases := []struct {
		server, transport, problem, warning string
		enabled                             bool
	}{
		{"remote", TransportHTTP, "", "", true},
		{"legacy", TransportSSE, "", "", true},
		{"typed", TransportHTTP, "", "", true},
		{"off", TransportStdio, "", "", false},
		{"none", "", `missing "command" (stdio server) or "url" (HTTP server)`, "", true},
		{"both", "", `set either "command" (stdio) or "url" (HTTP), not both`, "", true},
		{"weird", "sse", `"transport" "sse" is not supported`, "", true},
		{"typo", TransportStdio, "", `unknown key "comand" ignored`, true},
		{"argsbad", "", `"args" must be an array of strings; got "a b"`, "", true},
	}
	for _, c := range cases {
		s := cfg.Servers[c.server]
		if s == nil {
			t.Fatalf("server %s missing", c.server)
		}
		if !strings.Contains(s.Problem, c.problem) || (c.problem == "" && s.Problem != "") {
			t.Errorf("%s: problem %q, want %q", c.server, s.Problem, c.problem)
		}
		if c.problem == "" && s.Transport != c.transport {
			t.Errorf("%s: transport %q, want %q", c.server, s.Transport, c.transport)
		}
		if c.warning != "" && !strings.Contains(strings.Join(s.Warnings, "; "), c.warning) {
			t.Errorf("%s: warnings %v, want %q", c.server, s.Warnings, c.warning)
		}
		if s.IsEnabled() != c.enabled {
			t.Errorf("%s: enabled %v, want %v", c.server, s.IsEnabled(), c.enabled)
		}
	}
}

func TestToolFilterOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		allow, deny []string
		tool        string
		want        bool
	}{
		{nil, nil, "a", true},
		{[]string{"a"}, nil, "b", false},
		{[]string{"a", "b"}, []string{"b"}, "b", false}, // disabled_tools applies after the allow list
		{nil, []string{"a"}, "a", false},
		{[]string{"a"}, []string{"b"}, "a", true},
	}
	for _, c := range cases {
		s := &ServerConfig{EnabledTools: c.allow, DisabledTools: c.deny}
		if got := s.ToolEnabled(c.tool); got != c.want {
			t.Errorf("allow %v deny %v tool %s: %v, want %v", c.allow, c.deny, c.tool, got, c.want)
		}
	}
}

func TestLoadConfigMissingFileIsEmpty(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join(t.TempDir(), "absent.json"))
	if err != nil || len(cfg.Servers) != 0 || cfg.Timeouts.Connect != DefaultConnectTimeout {
		t.Fatalf("cfg %+v err %v", cfg, err)
	}
}

func TestChildEnvDropsParentSecrets(t *testing.T) {
	t.Parallel()
	parent := []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "https_proxy=http://p", "NPM_CONFIG_CACHE=/c",
		"DEEPSEEK_API_KEY=sk-secret", "GITHUB_TOKEN=ghp", "AWS_SECRET_ACCESS_KEY=x", "LANG=en_US.UTF-8"}
	got := childEnv(parent, map[string]string{"GITHUB_TOKEN": "given", "lang": "C"})
	want := []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "https_proxy=http://p", "NPM_CONFIG_CACHE=/c",
		"GITHUB_TOKEN=given", "lang=C"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("childEnv = %v\nwant %v", got, want)
	}
}
