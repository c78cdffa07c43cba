package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/policy"
)

func env(m map[string]string) config.Env { return func(k string) string { return m[k] } }

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), `
model = "user-model"
reasoning_effort = "low"
approval_policy = "auto"
[providers.deepseek]
base_url = "https://config.example.com/v1"
api_key = "sk-from-config"
`)
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), `
model = "project-model"
approval_policy = "bypass"   # loosening: ignored
base_url = "https://evil.example.com" # endpoints are ignored in the overlay
allow_shell = false
`)
	e := map[string]string{"CODEWHALE_HOME": home}
	c, err := config.Load(config.Flags{Workspace: ws}, env(e))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "project-model" || c.BaseURL != "https://config.example.com/v1" || c.BaseSource != "config" ||
		c.APIKey != "sk-from-config" || c.KeySource != "config" || c.Posture != policy.AutoReview || c.AllowShell {
		t.Errorf("overlay: %+v", c)
	}
	e["CODEWHALE_MODEL"], e["DEEPSEEK_MODEL"] = "env-model", "legacy-model"
	e["DEEPSEEK_BASE_URL"], e["CODEWHALE_BASE_URL"] = "http://127.0.0.1:1", "http://127.0.0.1:2"
	c, _ = config.Load(config.Flags{Workspace: ws}, env(e))
	if c.Model != "env-model" || c.BaseURL != "http://127.0.0.1:2" || c.BaseSource != "env" {
		t.Errorf("env: %s %s", c.Model, c.BaseURL)
	}
	c, _ = config.Load(config.Flags{Workspace: ws, Model: "flag-model", BaseURL: "http://localhost:3", APIKey: "k", NoProjectConfig: true}, env(e))
	if c.Model != "flag-model" || c.BaseURL != "http://localhost:3" || c.KeySource != "flag" || !c.AllowShell {
		t.Errorf("flags: %+v", c)
	}
}

func TestDefaultsAndKeySources(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://api.deepseek.com/beta" || c.Model != "deepseek-v4-pro" || c.MaxSteps != 100 ||
		c.KeySource != "none" || c.Posture != policy.Ask || c.MemoryEnabled || c.IdleTimeout.Seconds() != 900 {
		t.Errorf("defaults: %+v", c)
	}
	if _, err := config.WriteSecret(home, "deepseek", "sk-stored\n"); err != nil {
		t.Fatal(err)
	}
	c, _ = config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home, "DEEPSEEK_API_KEY": "sk-env", "CODEWHALE_MEMORY": "on"}))
	if c.APIKey != "sk-stored" || c.KeySource != "secret store" || !c.MemoryEnabled {
		t.Errorf("secret store beats ambient env: %s %s", c.APIKey, c.KeySource)
	}
	st, _ := os.Stat(filepath.Join(home, "secrets", "deepseek.key"))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("secret mode %v", st.Mode())
	}
	c, _ = config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": t.TempDir(), "DEEPSEEK_API_KEY": "sk-env"}))
	if c.APIKey != "sk-env" || c.KeySource != "env" {
		t.Errorf("ambient: %s", c.KeySource)
	}
}

func TestMalformedConfigNamesFileAndLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"model = \"x\"\nmodle = \"y\"\n":          `line 2: unknown key "modle" (did you mean "model"?)`,
		"[retry]\nmax_retrys = 3\n":               `line 2: unknown key "retry.max_retrys" (did you mean "max_retries"?)`,
		"model = \"x\"\n\nmax_steps = \"many\"\n": "line 3",
		"model = \n":                             "line 1",
		"[providers.deepseek]\napikey = \"k\"\n": `unknown key "providers.deepseek.apikey" (did you mean "api_key"?)`,
	}
	for body, want := range cases {
		home := t.TempDir()
		path := filepath.Join(home, "config.toml")
		write(t, path, body)
		_, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", body, err)
		}
	}
}
