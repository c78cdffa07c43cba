package config_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
)

func TestTrustedPathsComeFromTheUserFileOnly(t *testing.T) {
	t.Parallel()
	home, ws, extra := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "trusted_paths = [\""+extra+"\", \""+extra+"/\"]\n")
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "trusted_paths = [\"/\", \"/etc\"]\n")
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(extra)
	if !slices.Equal(c.TrustedPaths, []string{want}) {
		t.Errorf("TrustedPaths = %v, want [%s] (the project file cannot add roots)", c.TrustedPaths, want)
	}
	write(t, filepath.Join(home, "config.toml"), "trusted_paths = [\"/\"]\n")
	if _, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home})); err == nil ||
		!strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("trusting / = %v, want an error", err)
	}
}

func TestWorkspaceTrustList(t *testing.T) {
	t.Parallel()
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	if _, err := config.AddWorkspaceTrust(home, ws, other); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(other)
	if !slices.Equal(c.WorkspaceTrust, []string{want}) {
		t.Errorf("WorkspaceTrust = %v", c.WorkspaceTrust)
	}
	if got, _ := config.WorkspaceTrust(home, t.TempDir()); len(got) != 0 {
		t.Errorf("another workspace inherits the list: %v", got)
	}
	if list, err := config.RemoveWorkspaceTrust(home, ws, other); err != nil || len(list) != 0 {
		t.Errorf("remove: %v %v", list, err)
	}
	if _, err := config.AddWorkspaceTrust(home, ws, "/"); err == nil {
		t.Error("trusting / was accepted")
	}
}
