package config_test

import (
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
)

// CONTRACT.md §12.5: the MCP config is $CODEWHALE_HOME/mcp.json unless
// mcp_config_path or CODEWHALE_MCP_CONFIG names another (the environment
// wins over the file).
func TestContractMCPConfigPath(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	e := map[string]string{"CODEWHALE_HOME": home}
	c, err := config.Load(config.Flags{}, env(e))
	if err != nil || c.MCPConfigPath != filepath.Join(home, "mcp.json") {
		t.Fatalf("default: %q %v", c.MCPConfigPath, err)
	}
	write(t, filepath.Join(home, "config.toml"), "mcp_config_path = \"/srv/from-config.json\"\n")
	if c, err = config.Load(config.Flags{}, env(e)); err != nil || c.MCPConfigPath != "/srv/from-config.json" {
		t.Errorf("mcp_config_path: %q %v", c.MCPConfigPath, err)
	}
	e["CODEWHALE_MCP_CONFIG"] = "/srv/from-env.json"
	if c, err = config.Load(config.Flags{}, env(e)); err != nil || c.MCPConfigPath != "/srv/from-env.json" {
		t.Errorf("CODEWHALE_MCP_CONFIG: %q %v", c.MCPConfigPath, err)
	}
}
