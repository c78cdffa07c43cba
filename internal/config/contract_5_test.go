package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
)

// CONTRACT.md §5: the per-workspace trust list is kept in $CODEWHALE_HOME/workspace-trust.json as
// {"workspaces":{"<canonical workspace>":["<canonical path>",…]}}: a workspace and a root named through links are
// recorded canonical, and a hand-written file in that shape is the list Load reads.
// README.md "Slash commands": the trusted roots are recorded in $CODEWHALE_HOME/workspace-trust.json
func TestContract5TrustListFile(t *testing.T) {
	t.Parallel()
	home, ws, root := t.TempDir(), t.TempDir(), t.TempDir()
	canonWS, _ := filepath.EvalSymlinks(ws)
	canonRoot, _ := filepath.EvalSymlinks(root)
	links := t.TempDir()
	wsLink, rootLink := filepath.Join(links, "ws"), filepath.Join(links, "root")
	for target, link := range map[string]string{ws: wsLink, root: rootLink} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := config.AddWorkspaceTrust(home, wsLink, rootLink+"/"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(home, "workspace-trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string][]string
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("workspace-trust.json is not the contract's shape: %v\n%s", err, raw)
	}
	if want := map[string]map[string][]string{"workspaces": {canonWS: {canonRoot}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("workspace-trust.json = %s, want %v", raw, want)
	}

	other := t.TempDir()
	canonOther, _ := filepath.EvalSymlinks(other)
	body, _ := json.Marshal(map[string]any{"workspaces": map[string][]string{canonWS: {canonOther}}})
	write(t, filepath.Join(home, "workspace-trust.json"), string(body))
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.WorkspaceTrust, []string{canonOther}) {
		t.Errorf("Load read %v from a hand-written list, want [%s]", c.WorkspaceTrust, canonOther)
	}
}

// CONTRACT.md §5: nothing switches the boundary off: the filesystem root is refused as a trusted root, by
// `/trust add` and in a hand-edited workspace-trust.json alike (as in trusted_paths), instead of making every path
// reachable.
func TestContract5TrustListNeverHoldsTheRoot(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	canonWS, _ := filepath.EvalSymlinks(ws)
	if _, err := config.AddWorkspaceTrust(home, ws, "/"); err == nil || !strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("/trust add /: %v, want a refusal", err)
	}
	body, _ := json.Marshal(map[string]any{"workspaces": map[string][]string{canonWS: {"/"}}})
	write(t, filepath.Join(home, "workspace-trust.json"), string(body))
	if roots, err := config.WorkspaceTrust(home, ws); err == nil || len(roots) != 0 || !strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("a hand-written / = %v, %v; want no roots and an error naming the filesystem root", roots, err)
	}
	if _, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home})); err == nil ||
		!strings.Contains(err.Error(), "filesystem root") {
		t.Errorf("Load with / in the trust list: %v, want an error", err)
	}
}
