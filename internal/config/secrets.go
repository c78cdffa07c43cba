package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// secretPath is where `codewhale auth set` keeps a provider's key.
func secretPath(home, provider string) string {
	return filepath.Join(home, "secrets", provider+".key")
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
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".key-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.WriteString(key + "\n"); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("storing the key: %w", err)
	}
	return path, nil
}
