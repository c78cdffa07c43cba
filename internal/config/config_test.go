package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/posture"
)

func env(m map[string]string) config.Env { return func(k string) string { return m[k] } }

func write(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// CONTRACT.md §12.3: flag > environment > project overlay (tightening keys only, endpoints ignored) > user config >
// defaults.
// README.md "Configuration": flag > environment > project overlay (model, effort, tightening keys) > user config > defaults
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
		c.APIKey != "sk-from-config" || c.KeySource != "config" || c.Posture != posture.AutoReview || c.AllowShell {
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

// CONTRACT.md §10.1: the default route is provider deepseek at https://api.deepseek.com/beta with model
// deepseek-v4-pro.
// CONTRACT.md §12.4: memory is off by default and CODEWHALE_MEMORY=on turns it on.
// README.md "When the provider misbehaves": the deadlines default to 45 s, 120 s and 30 min.
func TestDefaultsAndKeySources(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://api.deepseek.com/beta" || c.Model != "deepseek-v4-pro" || c.MaxSteps != 100 ||
		c.KeySource != "none" || c.Posture != posture.Ask || c.MemoryEnabled || c.IdleTimeout.Seconds() != 120 || c.OpenTimeout.Seconds() != 45 || c.RequestTimeout.Minutes() != 30 {
		t.Errorf("defaults: %+v", c)
	}
	if _, err := config.WriteSecret(home, "deepseek", "sk-stored\n"); err != nil {
		t.Fatal(err)
	}
	c, _ = config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home, "DEEPSEEK_API_KEY": "sk-env", "CODEWHALE_MEMORY": "on"}))
	if c.APIKey != "sk-env" || c.KeySource != "env" || !c.MemoryEnabled {
		t.Errorf("the environment beats the secret store (CONTRACT.md §10.3): %s %s", c.APIKey, c.KeySource)
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

// CONTRACT.md §3.7: there are no script overrides or plugin tools, so the
// keys that would declare them are unknown keys, refused with the file and line.
// CONTRACT.md §12.3: an unknown key is an error naming the file and line, with a suggestion.
// README.md "Configuration": a malformed file is an error naming the file and line
func TestMalformedConfigNamesFileAndLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"model = \"x\"\nmodle = \"y\"\n":          `line 2: unknown key "modle" (did you mean "model"?)`,
		"[retry]\nmax_retrys = 3\n":               `line 2: unknown key "retry.max_retrys" (did you mean "max_retries"?)`,
		"model = \"x\"\n\nmax_steps = \"many\"\n": "line 3",
		"model = \n":                             "line 1",
		"[providers.deepseek]\napikey = \"k\"\n": `unknown key "providers.deepseek.apikey" (did you mean "api_key"?)`,
		"[tools]\noverride = \"x.sh\"\n":         `line 2: unknown key "tools.override"`,
		"[plugins]\nx = \"y\"\n":                 `line 1: unknown key "plugins"`,
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

// Unknown approval_policy values fail wherever they are written, naming the
// allowed ones; a project may only tighten (never beats a user's bypass).
func TestApprovalPolicyValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ user, project, flag, env, wantErr string }{
		{user: "yolo", wantErr: "config.toml: approval_policy: unknown approval_policy \"yolo\""},
		{user: "BYPASS", wantErr: "unknown approval_policy \"BYPASS\""},
		{project: "full", wantErr: filepath.Join(".codewhale", "config.toml") + ": approval_policy: unknown approval_policy \"full\""},
		{flag: "Yolo", wantErr: "--approval-policy: unknown approval_policy \"Yolo\""},
		{env: "danger", wantErr: "CODEWHALE_APPROVAL_POLICY: unknown approval_policy \"danger\""},
	} {
		home, ws := t.TempDir(), t.TempDir()
		if tt.user != "" {
			write(t, filepath.Join(home, "config.toml"), "approval_policy = \""+tt.user+"\"\n")
		}
		if tt.project != "" {
			write(t, filepath.Join(ws, ".codewhale", "config.toml"), "approval_policy = \""+tt.project+"\"\n")
		}
		_, err := config.Load(config.Flags{Workspace: ws, ApprovalPolicy: tt.flag},
			env(map[string]string{"CODEWHALE_HOME": home, "CODEWHALE_APPROVAL_POLICY": tt.env}))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), posture.Values) {
			t.Errorf("%+v: err = %v; want it to contain %q and the allowed values", tt, err, tt.wantErr)
		}
	}
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "approval_policy = \"bypass\"\n")
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "approval_policy = \"never\"\n")
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil || c.Posture != posture.Never {
		t.Errorf("project never over user bypass: %v, %v", c.Posture, err)
	}
}

// Retry and deadline settings outside their range are errors that name the
// key and the allowed range; nothing is clamped silently.
// README.md "When the provider misbehaves": out-of-range settings name key and range.
// README.md "Configuration": the ranges of the timeouts and [retry] keys
func TestRetryAndDeadlineValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"[retry]\nmax_retries = 1000000\n":                 "[retry] max_retries = 1000000 is out of range (allowed 0..10)",
		"[retry]\ninitial_delay = 0\n":                     "[retry] initial_delay = 0 is out of range (allowed 0.01..60)",
		"[retry]\nexponential_base = 0.5\n":                "[retry] exponential_base = 0.5 is out of range (allowed 1..10)",
		"[retry]\ninitial_delay = 10.0\nmax_delay = 2.0\n": "[retry] max_delay (2s) is below initial_delay (10s)",
		"[retry]\nmax_retry_after = 7200\n":                "[retry] max_retry_after = 7200 is out of range (allowed 0..3600)",
		"stream_chunk_timeout_secs = 0.01\n":               "stream_chunk_timeout_secs = 0.01 is out of range (allowed 0.1..3600)",
		"stream_open_timeout_secs = 900\n":                 "stream_open_timeout_secs = 900 is out of range (allowed 0.1..300)",
		"request_timeout_secs = -1\n":                      "request_timeout_secs = -1 is out of range (allowed 0.1..86400)",
	}
	for body, want := range cases {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	home := t.TempDir()
	body := "stream_chunk_timeout_secs = 30\nrequest_timeout_secs = 600\n[retry]\nmax_retries = 5\ninitial_delay = 0.5\nmax_retry_after = 120\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home, "CODEWHALE_STREAM_OPEN_TIMEOUT_SECS": "0.25"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.IdleTimeout != 30*time.Second || c.RequestTimeout != 10*time.Minute || c.OpenTimeout != 250*time.Millisecond ||
		c.Retry.MaxRetries != 5 || c.Retry.InitialDelay != 500*time.Millisecond || c.Retry.MaxRetryAfter != 2*time.Minute {
		t.Errorf("resolved %+v / %v %v %v", c.Retry, c.OpenTimeout, c.IdleTimeout, c.RequestTimeout)
	}
	_, err = config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home, "CODEWHALE_STREAM_IDLE_TIMEOUT_SECS": "soon"}))
	if err == nil || !strings.Contains(err.Error(), `CODEWHALE_STREAM_IDLE_TIMEOUT_SECS = "soon" is not a number of seconds`) {
		t.Errorf("bad env: %v", err)
	}
}

// A nil Env reads the process environment (auth set once panicked here).
func TestHomeDirWithNilEnv(t *testing.T) {
	t.Setenv("CODEWHALE_HOME", "/tmp/cw-home-test")
	if got := config.HomeDir(nil); got != "/tmp/cw-home-test" {
		t.Errorf("HomeDir(nil) = %q", got)
	}
}

// The environment is read once, by config, and handed down as values: the
// client config carries the insecure-http and output-cap switches, and
// Env is the environment the configuration came from.
func TestEnvironmentIsHandedDown(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	e := map[string]string{"CODEWHALE_HOME": home, "CODEWHALE_ALLOW_INSECURE_HTTP": "1",
		"DEEPSEEK_MAX_OUTPUT_TOKENS": "1234", "NO_ANIMATIONS": "1"}
	c, err := config.Load(config.Flags{}, env(e))
	if err != nil {
		t.Fatal(err)
	}
	cc := c.ClientConfig("deepseek-v4-pro")
	if !c.HomeFromEnv || !cc.AllowInsecureHTTP || cc.MaxOutputTokens != 1234 || c.Env("NO_ANIMATIONS") != "1" {
		t.Errorf("home-from-env %v insecure %v max %d env %q", c.HomeFromEnv, cc.AllowInsecureHTTP, cc.MaxOutputTokens, c.Env("NO_ANIMATIONS"))
	}
	c, err = config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil || c.AllowInsecureHTTP || c.MaxOutputTokens != 0 {
		t.Errorf("defaults: %v %v %d", err, c.AllowInsecureHTTP, c.MaxOutputTokens)
	}
}

// The workspace's overlay is read only where it resolves inside the
// workspace: one that links out (the model can write the workspace) stops
// the load with a sentence saying where it points; one inside still applies.
func TestProjectConfigLinkedOutsideIsRefused(t *testing.T) {
	t.Parallel()
	home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "config.toml"), "model = \"outside-model\"\n")
	if err := os.MkdirAll(filepath.Join(ws, ".codewhale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "config.toml"), config.ProjectPath(ws)); err != nil {
		t.Fatal(err)
	}
	e := env(map[string]string{"CODEWHALE_HOME": home})
	if c, err := config.Load(config.Flags{Workspace: ws}, e); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("a linked-out project config: %v, %+v", err, c)
	}
	if err := os.Remove(config.ProjectPath(ws)); err != nil {
		t.Fatal(err)
	}
	write(t, config.ProjectPath(ws), "model = \"inside-model\"\n")
	if c, err := config.Load(config.Flags{Workspace: ws}, e); err != nil || c.File.Model != "inside-model" {
		t.Fatalf("the project config inside: %v", err)
	}
}

// CONTRACT.md §12.3: the user config is $CODEWHALE_HOME/config.toml unless
// CODEWHALE_CONFIG_PATH names another file, and --config beats both.
// README.md "Configuration": --config and CODEWHALE_CONFIG_PATH pick another file than CODEWHALE_HOME's config.toml
func TestConfigPathOverrides(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "model = \"home-model\"\n")
	write(t, filepath.Join(dir, "env.toml"), "model = \"env-model\"\n")
	write(t, filepath.Join(dir, "flag.toml"), "model = \"flag-model\"\n")
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flag  string
		model string
	}{
		{"home", map[string]string{}, "", "home-model"},
		{"environment", map[string]string{"CODEWHALE_CONFIG_PATH": filepath.Join(dir, "env.toml")}, "", "env-model"},
		{"flag", map[string]string{"CODEWHALE_CONFIG_PATH": filepath.Join(dir, "env.toml")}, filepath.Join(dir, "flag.toml"), "flag-model"},
	} {
		tc.env["CODEWHALE_HOME"] = home
		c, err := config.Load(config.Flags{ConfigPath: tc.flag}, env(tc.env))
		if err != nil || c.Model != tc.model {
			t.Errorf("%s: model %q (%v), want %q", tc.name, c.Model, err, tc.model)
		}
	}
}
