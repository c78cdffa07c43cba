package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/netpolicy"
)

func TestWebConfig(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), `
[network]
default = "prompt"
allow = [".go.dev"]
deny = ["evil.example"]
allow_private = ["localhost:3000", "127.0.0.1:8080"]
audit = true
[search]
provider = "searxng"
base_url = "http://127.0.0.1:8888"
fallback = ["brave", "duckduckgo"]
[search.brave]
api_key = "brave-key"
`)
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), `
[network]
deny = ["tracker.example"]
allow = ["everything.example"] # a project may only tighten: ignored
allow_private = ["169.254.169.254"] # ignored too
`)
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	w := c.Web
	if !w.Enabled || w.Provider != "searxng" || w.Backends["searxng"].BaseURL != "http://127.0.0.1:8888" ||
		w.Backends["brave"].APIKey != "brave-key" || strings.Join(w.Fallback, ",") != "brave,duckduckgo" {
		t.Errorf("web config %+v", w)
	}
	p := w.Policy
	if p.Default != netpolicy.Prompt || strings.Join(p.Allow, ",") != ".go.dev" ||
		strings.Join(p.Deny, ",") != "evil.example,tracker.example" || strings.Join(p.AllowPrivate, ",") != "localhost:3000,127.0.0.1:8080" ||
		p.Audit == nil || p.Audit.Path != filepath.Join(home, "audit.log") {
		t.Errorf("policy %+v", p)
	}
}

// [github] hosts come from the user's file only, normalised; a malformed
// entry is an error naming the key.
func TestGitHubHosts(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "[github]\nhosts = [\"GHE.Corp.Example\", \"127.0.0.1:8443\"]\n")
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), "[github]\nhosts = [\"attacker.example\"]\n")
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home}))
	if err != nil || strings.Join(c.GitHubHosts, ",") != "ghe.corp.example,127.0.0.1:8443" {
		t.Fatalf("hosts %q %v", c.GitHubHosts, err)
	}
	write(t, filepath.Join(home, "config.toml"), "[github]\nhosts = [\"https://ghe.corp.example\"]\n")
	if _, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home})); err == nil ||
		!strings.Contains(err.Error(), `github.hosts: "https://ghe.corp.example" is not a host or host:port`) {
		t.Errorf("bad entry: %v", err)
	}
}

// README.md "Web and GitHub": DEEPSEEK_SEARCH_PROVIDER, DEEPSEEK_SEARCH_API_KEY and CODEWHALE_SEARCH_BASE_URL configure search.
func TestWebConfigFromEnvironment(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home,
		"DEEPSEEK_SEARCH_PROVIDER": "tavily", "DEEPSEEK_SEARCH_API_KEY": "tvly-1", "CODEWHALE_SEARCH_BASE_URL": "http://127.0.0.1:9/"}))
	if err != nil {
		t.Fatal(err)
	}
	if ep := c.Web.Backends["tavily"]; c.Web.Provider != "tavily" || ep.APIKey != "tvly-1" || ep.BaseURL != "http://127.0.0.1:9/" {
		t.Errorf("%+v", c.Web)
	}
}

// README.md "Web and GitHub": [features] web_search = false turns Web off, and so does default = "deny" with nothing allowed.
func TestWebConfigOffAndErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		body    string
		enabled bool
		err     string
	}{
		"default on":               {``, true, ""},
		"feature off":              {"[features]\nweb_search = false\n", false, ""},
		"deny everything":          {"[network]\ndefault = \"deny\"\n", false, ""},
		"deny with an allow":       {"[network]\ndefault = \"deny\"\nallow = [\"go.dev\"]\n", true, ""},
		"bad default":              {"[network]\ndefault = \"sometimes\"\n", false, `network.default: unknown value "sometimes" (allowed: allow, deny, prompt)`},
		"bad provider":             {"[search]\nprovider = \"altavista\"\n", false, `search.provider: unknown value "altavista"`},
		"typo names the right key": {"[network]\nallw = []\n", false, `unknown key "network.allw" (did you mean "allow"?)`},
		"bad allow_private":        {"[network]\nallow_private = [\"http://localhost:3000\"]\n", false, `network.allow_private: "http://localhost:3000" is not a host or host:port`},
	}
	for name, c := range cases {
		home := t.TempDir()
		write(t, filepath.Join(home, "config.toml"), c.body)
		cfg, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home}))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %v, want %q", name, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.err == "" && cfg.Web.Enabled != c.enabled:
			t.Errorf("%s: enabled %v", name, cfg.Web.Enabled)
		}
	}
}
