package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// secretPath is where `codewhale auth set` keeps a provider's key: under
// the lower-case id a route reads it by (--provider is folded to lower
// case, CONTRACT.md §10.3).
func secretPath(home, provider string) string {
	return filepath.Join(home, "secrets", strings.ToLower(provider)+".key")
}

// ReadSecret returns the stored key for provider ("" when none).
func ReadSecret(home, provider string) (string, error) {
	b, err := os.ReadFile(secretPath(home, provider))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteSecret stores key for provider, readable only by the user, written
// atomically.
func WriteSecret(home, provider, key string) (string, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return "", errors.New("the API key is empty")
	}
	path := secretPath(home, provider)
	if err := atomicfile.Write(path, []byte(key+"\n"), 0o600, false); err != nil {
		return "", fmt.Errorf("storing the key: %w", err)
	}
	return path, nil
}
