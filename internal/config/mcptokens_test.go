package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server name never takes a token file out of secrets/mcp, and tokens
// are written readable by the person only.
func TestMCPTokensStayInTheSecretsStore(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	m := MCPTokens{Home: home}
	dir := filepath.Join(home, "secrets", "mcp") + string(filepath.Separator)
	for _, name := range []string{"linear", "../../escape", "a/b", "..", "."} {
		err := m.SaveToken(name, []byte(`{"token":{}}`))
		switch name {
		case "..", ".":
			if err == nil {
				t.Errorf("%q: a token was stored under a dot name", name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		p := m.TokenPlace(name)
		if fi, err := os.Stat(p); !strings.HasPrefix(p, dir) || err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%q: stored at %s (%v, %v)", name, p, fi, err)
		}
		if b, err := m.LoadToken(name); err != nil || string(b) != `{"token":{}}` {
			t.Errorf("%q: load %q %v", name, b, err)
		}
		if had, err := m.DeleteToken(name); !had || err != nil {
			t.Errorf("%q: delete %v %v", name, had, err)
		}
	}
	if b, err := m.LoadToken("none"); b != nil || err != nil {
		t.Errorf("missing token: %q %v", b, err)
	}
}
