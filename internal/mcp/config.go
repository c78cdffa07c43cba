// Package mcp is codewhale's MCP client (CONTRACT.md §12.5, §4.7): it
// reads mcp.json, starts the configured servers (stdio and Streamable HTTP,
// on the official Go SDK), keeps each server's state, and exposes every tool
// of a connected server as a tools.Tool named by mcpname.ModelToolName.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

// Default timeouts (CONTRACT.md §12.5).
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultExecuteTimeout = 60 * time.Second
	DefaultReadTimeout    = 120 * time.Second
)

// Timeouts are the three per-server budgets. A zero field means "inherit".
type Timeouts struct {
	Connect time.Duration // spawn/connect, initialize and the first tools/list
	Execute time.Duration // one tools/call
	Read    time.Duration // other requests (a tools/list refresh)
}

// Transport kinds.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // Streamable HTTP
	TransportSSE   = "sse"  // legacy HTTP+SSE
)

// ServerConfig is one entry of "servers". Problem is set when the entry is
// unusable; such a server is reported with state config_error and never
// started.
type ServerConfig struct {
	Name string

	Command string
	Args    []string
	Env     map[string]string

	URL               string
	Transport         string // stdio, http or sse (derived when absent)
	Headers           map[string]string
	EnvHeaders        map[string]string // header -> environment variable holding its value
	BearerTokenEnvVar string
	OAuth             OAuthConfig // "oauth": how `mcp login` registers (CONTRACT.md §12.5)

	Timeouts Timeouts // as configured for this server; zero fields inherit

	Disabled      bool
	Enabled       bool // "enabled" (default true)
	Required      bool
	EnabledTools  []string
	DisabledTools []string
	// Startup is "eager" (the default: connected when the session starts,
	// the first turn waits for it) or "lazy" (connected on first use).
	Startup string

	Problem  string   // why the entry cannot be used ("" when it can)
	Warnings []string // keys that were ignored
	Unset    []string // ${VAR} references with no value and no default (Problem says so)

	// Display is where the server lives as written (command line or URL)
	// before ${VAR} expansion, so a listing never shows an expanded secret.
	Display string
	// Source is the file the entry came from (the user's mcp.json or a
	// project's .mcp.json).
	Source string
}

// Startup values.
const (
	StartupEager = "eager"
	StartupLazy  = "lazy"
)

// Lazy reports whether the server connects on first use only.
func (s *ServerConfig) Lazy() bool { return s.Startup == StartupLazy }

// IsEnabled reports whether the server should be started.
func (s *ServerConfig) IsEnabled() bool { return s.Enabled && !s.Disabled }

// ToolEnabled applies enabled_tools (an allow list when non-empty) and then
// disabled_tools.
func (s *ServerConfig) ToolEnabled(tool string) bool {
	if len(s.EnabledTools) > 0 && !contains(s.EnabledTools, tool) {
		return false
	}
	return !contains(s.DisabledTools, tool)
}

// Config is a parsed mcp.json.
type Config struct {
	Path     string
	Timeouts Timeouts // top-level "timeouts" with defaults filled in
	Servers  map[string]*ServerConfig
	// Project is the workspace's .mcp.json when the pool reads one (its
	// servers are merged into Servers); nil otherwise.
	Project *ProjectFile
}

// Names returns the server names, sorted.
func (c *Config) Names() []string {
	out := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Effective returns the timeouts that apply to server: its own, else the
// file's, else the defaults.
func (c *Config) Effective(s *ServerConfig) Timeouts {
	pick := func(own, global time.Duration) time.Duration {
		if own > 0 {
			return own
		}
		return global
	}
	return Timeouts{Connect: pick(s.Timeouts.Connect, c.Timeouts.Connect),
		Execute: pick(s.Timeouts.Execute, c.Timeouts.Execute), Read: pick(s.Timeouts.Read, c.Timeouts.Read)}
}

// ConfigError is an mcp.json that cannot be used at all.
type ConfigError struct {
	Path string
	Msg  string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("MCP config %s: %s", e.Path, e.Msg) }

// LoadConfig reads path. A missing file is an empty configuration, not an
// error. A malformed file is a *ConfigError naming the file and the problem
// (line and column for JSON syntax errors).
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Path: path, Timeouts: defaultTimeouts(), Servers: map[string]*ServerConfig{}}, nil
	}
	if err != nil {
		return nil, &ConfigError{Path: path, Msg: err.Error()}
	}
	return ParseConfig(path, data)
}

// ParseConfig parses the bytes of an mcp.json; path is used in errors.
// ${VAR} references are expanded from the process environment.
func ParseConfig(path string, data []byte) (*Config, error) { return ParseConfigEnv(path, data, nil) }

// ParseConfigEnv is ParseConfig with the variables read through lookup
// (nil: the process environment).
func ParseConfigEnv(path string, data []byte, lookup Lookup) (*Config, error) {
	fail := func(format string, a ...any) (*Config, error) {
		return nil, &ConfigError{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &Config{Path: path, Timeouts: defaultTimeouts(), Servers: map[string]*ServerConfig{}}, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fail("%s", describeJSONError(data, err))
	}
	if top == nil {
		return fail("the top level must be a JSON object")
	}
	cfg := &Config{Path: path, Timeouts: defaultTimeouts(), Servers: map[string]*ServerConfig{}}
	if raw, ok := top["timeouts"]; ok {
		t, err := parseTimeouts(raw)
		if err != nil {
			return fail("\"timeouts\": %v", err)
		}
		cfg.Timeouts = fill(t, cfg.Timeouts)
	}
	key, raw, err := serversKey(top)
	if err != nil {
		return fail("%v", err)
	}
	if raw == nil {
		return cfg, nil
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
		return fail("%q must be an object mapping server names to server settings", key)
	}
	for name, body := range servers {
		s := parseServer(name, body, lookup)
		s.Source = path
		cfg.Servers[name] = s
	}
	return cfg, nil
}

// serversKey returns which of "servers" / "mcpServers" holds the servers.
func serversKey(top map[string]json.RawMessage) (string, json.RawMessage, error) {
	a, hasA := top["servers"]
	b, hasB := top["mcpServers"]
	switch {
	case hasA && hasB:
		return "", nil, errors.New(`both "servers" and "mcpServers" are set; keep one of them`)
	case hasB:
		return "mcpServers", b, nil
	case hasA:
		return "servers", a, nil
	}
	return "servers", nil, nil
}

func defaultTimeouts() Timeouts {
	return Timeouts{Connect: DefaultConnectTimeout, Execute: DefaultExecuteTimeout, Read: DefaultReadTimeout}
}

func fill(t, base Timeouts) Timeouts {
	if t.Connect > 0 {
		base.Connect = t.Connect
	}
	if t.Execute > 0 {
		base.Execute = t.Execute
	}
	if t.Read > 0 {
		base.Read = t.Read
	}
	return base
}

func parseTimeouts(raw json.RawMessage) (Timeouts, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Timeouts{}, errors.New("must be an object of seconds, e.g. {\"connect_timeout\":10}")
	}
	var t Timeouts
	for key, dst := range map[string]*time.Duration{"connect_timeout": &t.Connect, "execute_timeout": &t.Execute, "read_timeout": &t.Read} {
		if v, ok := m[key]; ok {
			d, err := seconds(v)
			if err != nil {
				return Timeouts{}, fmt.Errorf("%q %v", key, err)
			}
			*dst = d
		}
	}
	return t, nil
}

// seconds parses a positive number of seconds.
func seconds(raw json.RawMessage) (time.Duration, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("must be a number of seconds; got %s", preview(raw))
	}
	if f <= 0 || math.IsInf(f, 0) || f > 86400 {
		return 0, fmt.Errorf("must be between 0 and 86400 seconds; got %s", preview(raw))
	}
	return time.Duration(f * float64(time.Second)), nil
}

// describeJSONError renders a decoding error with its line and column.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		if syn.Offset >= int64(len(data)) {
			return fmt.Sprintf("invalid JSON at line %d, column %d: the file ends early (an unclosed brace, bracket or string?)", line, col)
		}
		return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		return fmt.Sprintf("line %d, column %d: expected %s, found a JSON %s", line, col, typ.Type, typ.Value)
	}
	return "invalid JSON: " + err.Error()
}

// lineCol converts a byte offset (the count of bytes read, as encoding/json
// reports it) into a 1-based line and column.
func lineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:max(offset-1, 0)] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// preview is a short rendering of a raw JSON value for an error message.
func preview(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// validURL reports a problem with a remote server URL, or "".
func validURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Sprintf("\"url\" %q is not a valid URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("\"url\" %q must start with http:// or https://", raw)
	}
	if u.Host == "" {
		return fmt.Sprintf("\"url\" %q has no host", raw)
	}
	return ""
}
