package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
)

// [agents] default_model is read from the user's file, a project overlay
// may set it as it may set model, and a misspelt key is an error that
// names the right one.
func TestAgentsDefaultModel(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "[agents]\ndefault_model = \"deepseek-v4-flash\"\n")
	e := env(map[string]string{"CODEWHALE_HOME": home})
	c, err := config.Load(config.Flags{Workspace: ws}, e)
	if err != nil || c.AgentsModel != "deepseek-v4-flash" {
		t.Fatalf("user file: %q %v", c.AgentsModel, err)
	}
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "[agents]\ndefault_model = \"deepseek-v4-pro\"\n")
	if c, err = config.Load(config.Flags{Workspace: ws}, e); err != nil || c.AgentsModel != "deepseek-v4-pro" {
		t.Fatalf("project overlay: %q %v", c.AgentsModel, err)
	}
	write(t, filepath.Join(home, "config.toml"), "[agents]\ndefault_modle = \"x\"\n")
	if _, err = config.Load(config.Flags{Workspace: t.TempDir()}, e); err == nil || !strings.Contains(err.Error(), "default_model") {
		t.Errorf("misspelt key: %v", err)
	}
}
