package mcp

import "testing"

// TestMergeClientKeepsTheFilesServer: an editor's server named like one
// of mcp.json's does not replace it (the file is the person's standing
// choice); the others are added, enabled, with their transport.
func TestMergeClientKeepsTheFilesServer(t *testing.T) {
	t.Parallel()
	own := &ServerConfig{Name: "fs", Command: "mine", Enabled: true}
	cfg := &Config{Servers: map[string]*ServerConfig{"fs": own}}
	mergeClient(cfg, []ServerConfig{{Name: "fs", Command: "theirs"}, {Name: "web", URL: "https://mcp.example/x"}, {Name: "sh", Command: "srv"}})
	if cfg.Servers["fs"] != own || own.Command != "mine" || len(own.Warnings) != 1 {
		t.Errorf("fs = %+v, want the file's entry kept with a warning", cfg.Servers["fs"])
	}
	if w := cfg.Servers["web"]; w == nil || w.Transport != "http" || !w.IsEnabled() || w.Source != ClientSource {
		t.Errorf("web = %+v", w)
	}
	if s := cfg.Servers["sh"]; s == nil || s.Transport != "stdio" || s.Display != "srv" {
		t.Errorf("sh = %+v", s)
	}
}
