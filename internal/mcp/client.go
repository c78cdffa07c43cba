package mcp

import "fmt"

// ClientSource is the Source of a server a host was handed for one
// session rather than read from a file.
const ClientSource = "the editor (ACP session/new)"

// mergeClient adds the servers the host was handed for this session (an
// ACP client's session/new mcpServers, ARCHITECTURE.md §9) to cfg. They
// are the person's own, named in their editor's settings, so they start
// as the person's mcp.json servers do; an entry of mcp.json (or a project
// file) with the same name is kept and the editor's is reported.
func mergeClient(cfg *Config, servers []ServerConfig) {
	for i := range servers {
		s := servers[i]
		if own, ok := cfg.Servers[s.Name]; ok {
			own.Warnings = append(own.Warnings, fmt.Sprintf("%s also defines a server '%s'; this entry is used", ClientSource, s.Name))
			continue
		}
		s.Enabled, s.Source = true, ClientSource
		if s.Transport == "" {
			s.Transport = "stdio"
			if s.URL != "" {
				s.Transport = "http"
			}
		}
		if s.Display == "" {
			s.Display = s.URL
			if s.Command != "" {
				s.Display = s.Command
			}
		}
		if s.Name == "" {
			s.Problem = "the editor passed a server without a name"
		}
		cfg.Servers[s.Name] = &s
	}
}
