package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// MCPTokens is the secrets store's part for MCP servers' OAuth tokens
// (CONTRACT.md §12.5): $CODEWHALE_HOME/secrets/mcp/<server>.json, readable
// by the person only, written atomically. It implements mcp.TokenStore.
type MCPTokens struct{ Home string }

// tokenPath is where server's token is kept; the name is escaped so no
// server name leaves the directory.
func (m MCPTokens) tokenPath(server string) (string, error) {
	name := url.PathEscape(server)
	if m.Home == "" || name == "" || name == "." || name == ".." {
		return "", fmt.Errorf("no place for the token of MCP server %q", server)
	}
	return filepath.Join(m.Home, "secrets", "mcp", name+".json"), nil
}

// TokenPlace is where server's token is kept, for messages.
func (m MCPTokens) TokenPlace(server string) string {
	p, err := m.tokenPath(server)
	if err != nil {
		return "the secrets store"
	}
	return p
}

// LoadToken returns server's stored token (nil when none).
func (m MCPTokens) LoadToken(server string) ([]byte, error) {
	p, err := m.tokenPath(server)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// SaveToken stores server's token with mode 0600.
func (m MCPTokens) SaveToken(server string, data []byte) error {
	p, err := m.tokenPath(server)
	if err != nil {
		return err
	}
	return atomicfile.Write(p, data, 0o600, false)
}

// DeleteToken removes server's token; false when there was none.
func (m MCPTokens) DeleteToken(server string) (bool, error) {
	p, err := m.tokenPath(server)
	if err != nil {
		return false, err
	}
	err = os.Remove(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
