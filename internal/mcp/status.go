package mcp

import (
	"fmt"
	"strings"
)

// State is a server's lifecycle state.
type State string

const (
	StatePending     State = "pending"      // configured and enabled, not started yet
	StateConnecting  State = "connecting"   // handshake in progress
	StateConnected   State = "connected"    // tools available
	StateDegraded    State = "degraded"     // lost after connecting; last good tools kept while reconnecting
	StateFailed      State = "failed"       // could not start, or died later; Error says why
	StateDisabled    State = "disabled"     // "enabled": false or "disabled": true
	StateConfigError State = "config_error" // the entry is unusable; Error says why
)

// ToolInfo describes one enabled tool of a connected server.
type ToolInfo struct {
	Name        string `json:"name"`       // the server's own name
	ModelName   string `json:"model_name"` // mcpname.ModelToolName(server, Name)
	Description string `json:"description,omitempty"`
}

// Status is a snapshot of one configured server.
type Status struct {
	Name       string     `json:"name"`
	Transport  string     `json:"transport,omitempty"`
	Target     string     `json:"target,omitempty"` // command line or URL
	State      State      `json:"state"`
	Error      string     `json:"error,omitempty"`
	StderrTail string     `json:"stderr_tail,omitempty"`
	Required   bool       `json:"required,omitempty"`
	PID        int        `json:"pid,omitempty"` // stdio servers while connected
	Tools      []ToolInfo `json:"tools,omitempty"`
	Warnings   []string   `json:"warnings,omitempty"`

	// While connected: what initialize negotiated and what the server
	// offers besides tools.
	ProtocolVersion string       `json:"protocol_version,omitempty"`
	ServerName      string       `json:"server_name,omitempty"` // serverInfo.name
	Instructions    string       `json:"instructions,omitempty"`
	Resources       int          `json:"resources,omitempty"`
	Templates       int          `json:"resource_templates,omitempty"`
	Prompts         []PromptInfo `json:"prompts,omitempty"`
	OffersResources bool         `json:"offers_resources,omitempty"`
	OffersPrompts   bool         `json:"offers_prompts,omitempty"`
	ListError       string       `json:"list_error,omitempty"` // a listing the server advertised and then failed
	Degraded        bool         `json:"degraded,omitempty"`   // lost; reconnecting with the last good tools
	Lazy            bool         `json:"lazy,omitempty"`       // "startup": "lazy": connects on first use
	Reconnect       int          `json:"reconnect_attempt,omitempty"`
}

// target renders where a server lives for listings: as written, before
// ${VAR} expansion, when the entry came from a file.
func target(s *ServerConfig) string {
	if s.Display != "" {
		return s.Display
	}
	if s.Transport == TransportStdio || s.Command != "" {
		parts := append([]string{s.Command}, s.Args...)
		for i, p := range parts {
			if p == "" || strings.ContainsAny(p, " \t\"'") {
				parts[i] = fmt.Sprintf("%q", p)
			}
		}
		return strings.Join(parts, " ")
	}
	return s.URL
}
