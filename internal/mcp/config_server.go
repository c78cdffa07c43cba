package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// knownServerKeys are the keys a server entry may carry. "type" is accepted
// because other MCP clients write it ("stdio", "http", "sse").
var knownServerKeys = map[string]bool{
	"command": true, "args": true, "env": true, "url": true, "transport": true, "type": true,
	"headers": true, "env_headers": true, "bearer_token_env_var": true, "oauth": true,
	"connect_timeout": true, "execute_timeout": true, "read_timeout": true,
	"disabled": true, "enabled": true, "required": true, "enabled_tools": true, "disabled_tools": true,
	"startup": true,
}

// parseServer decodes one server entry and expands its ${VAR} references
// through lookup (nil: the process environment). It never fails: an
// unusable entry is returned with Problem set so the server can still be
// listed with its error.
func parseServer(name string, body json.RawMessage, lookup Lookup) *ServerConfig {
	s := &ServerConfig{Name: name, Enabled: true}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		s.Problem = "the entry must be a JSON object with \"command\" (stdio) or \"url\" (HTTP)"
		return s
	}
	if strings.TrimSpace(name) == "" {
		s.Problem = "the server name is empty"
		return s
	}
	for key := range m {
		if !knownServerKeys[key] {
			s.Warnings = append(s.Warnings, fmt.Sprintf("unknown key %q ignored", key))
		}
	}
	sort.Strings(s.Warnings)
	if err := decodeServerFields(s, m); err != nil {
		s.Problem = err.Error()
		return s
	}
	written := *s
	s.Unset = expandServer(s, lookup)
	s.Problem = checkServer(s, m)
	written.Transport = s.Transport
	s.Display = target(&written)
	if len(s.Unset) > 0 {
		// The unset variable is the cause of any other complaint (an
		// empty host, say), and the one thing to fix.
		s.Problem = unsetProblem(s.Unset)
	}
	return s
}

// field decodes m[key] into dst when present, naming the key and the
// expected shape on failure.
func field(m map[string]json.RawMessage, key string, dst any, shape string) error {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%q must be %s; got %s", key, shape, preview(raw))
	}
	return nil
}

func decodeServerFields(s *ServerConfig, m map[string]json.RawMessage) error {
	var typ string
	steps := []error{
		field(m, "command", &s.Command, "a string"),
		field(m, "args", &s.Args, "an array of strings"),
		field(m, "env", &s.Env, "an object of string values"),
		field(m, "url", &s.URL, "a string"),
		field(m, "transport", &s.Transport, "a string"),
		field(m, "type", &typ, "a string"),
		field(m, "headers", &s.Headers, "an object of string values"),
		field(m, "env_headers", &s.EnvHeaders, "an object mapping header names to environment variable names"),
		field(m, "bearer_token_env_var", &s.BearerTokenEnvVar, "a string"),
		field(m, "oauth", &s.OAuth, `an object such as {"client_id": "…", "scopes": ["…"], "callback_port": 8976}`),
		field(m, "disabled", &s.Disabled, "true or false"),
		field(m, "enabled", &s.Enabled, "true or false"),
		field(m, "required", &s.Required, "true or false"),
		field(m, "enabled_tools", &s.EnabledTools, "an array of tool names"),
		field(m, "disabled_tools", &s.DisabledTools, "an array of tool names"),
		field(m, "startup", &s.Startup, `"eager" or "lazy"`),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	for _, t := range []struct {
		key string
		dst *time.Duration
	}{{"connect_timeout", &s.Timeouts.Connect}, {"execute_timeout", &s.Timeouts.Execute}, {"read_timeout", &s.Timeouts.Read}} {
		if raw, ok := m[t.key]; ok && string(raw) != "null" {
			d, err := seconds(raw)
			if err != nil {
				return fmt.Errorf("%q %v", t.key, err)
			}
			*t.dst = d
		}
	}
	if s.Transport == "" {
		s.Transport = typ
	}
	return nil
}

// checkServer validates the decoded entry and fills in the transport kind.
func checkServer(s *ServerConfig, m map[string]json.RawMessage) string {
	if s.Startup != "" && s.Startup != StartupEager && s.Startup != StartupLazy {
		return fmt.Sprintf("\"startup\" must be \"eager\" or \"lazy\"; got %q", s.Startup)
	}
	hasCmd, hasURL := strings.TrimSpace(s.Command) != "", strings.TrimSpace(s.URL) != ""
	switch {
	case hasCmd && hasURL:
		return "set either \"command\" (stdio) or \"url\" (HTTP), not both"
	case !hasCmd && !hasURL:
		return "missing \"command\" (stdio server) or \"url\" (HTTP server)"
	}
	kind, ok := transportKind(s.Transport, hasCmd)
	if !ok {
		return fmt.Sprintf("\"transport\" %q is not supported; use \"stdio\" with \"command\", or \"http\" (Streamable HTTP) or \"sse\" with \"url\"", s.Transport)
	}
	s.Transport = kind
	if hasURL {
		if p := validURL(s.URL); p != "" {
			return p
		}
	}
	for k, v := range s.Headers {
		if strings.TrimSpace(k) == "" || strings.ContainsAny(k+v, "\r\n") {
			return fmt.Sprintf("header %q is invalid: names must be non-empty and values must not contain line breaks", k)
		}
	}
	if hasCmd && (len(s.Headers) > 0 || len(s.EnvHeaders) > 0 || s.BearerTokenEnvVar != "" || !s.OAuth.empty()) {
		s.Warnings = append(s.Warnings, "headers, env_headers, bearer_token_env_var and oauth apply to HTTP servers only; ignored for a stdio server")
	}
	if p := s.OAuth.CallbackPort; p < 0 || p > 65535 {
		return fmt.Sprintf("\"oauth\".\"callback_port\" %d is not a port (1-65535, or 0 for any free one)", p)
	}
	return ""
}

// transportKind maps a configured transport spelling onto stdio/http/sse.
func transportKind(t string, hasCmd bool) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "":
		if hasCmd {
			return TransportStdio, true
		}
		return TransportHTTP, true
	case "stdio":
		return TransportStdio, hasCmd
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		return TransportHTTP, !hasCmd
	case "sse":
		return TransportSSE, !hasCmd
	}
	return "", false
}
