package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
)

// CONTRACT.md §10.3: key precedence is --api-key > environment > config file >
// secrets store; each pair is checked with only those two sources present.
// README.md "Providers: OpenRouter, local models, your gateway": the order keys are read in.
func TestKeyPrecedencePairwise(t *testing.T) {
	t.Parallel()
	sources := []string{"flag", "env", "config", "secret store"} // highest first
	for i, hi := range sources {
		for _, lo := range sources[i+1:] {
			t.Run(hi+" beats "+lo, func(t *testing.T) {
				t.Parallel()
				home := t.TempDir()
				e := map[string]string{"CODEWHALE_HOME": home}
				var flags config.Flags
				for _, s := range []string{hi, lo} {
					switch s {
					case "flag":
						flags.APIKey = "sk-flag"
					case "env":
						e["DEEPSEEK_API_KEY"] = "sk-env"
					case "config":
						write(t, filepath.Join(home, "config.toml"), "api_key = \"sk-config\"\n")
					case "secret store":
						if _, err := config.WriteSecret(home, "deepseek", "sk-secret store"); err != nil {
							t.Fatal(err)
						}
					}
				}
				c, err := config.Load(flags, env(e))
				if err != nil {
					t.Fatal(err)
				}
				if c.KeySource != hi || c.APIKey != "sk-"+hi {
					t.Errorf("got key %q from %s, want the %s key", c.APIKey, c.KeySource, hi)
				}
			})
		}
	}
}

// routeCase loads a configuration and checks either the route or the error.
type routeCase struct {
	name    string
	config  string
	env     map[string]string
	flags   config.Flags
	base    string // want BaseURL
	key     string // want the key handed to the client
	host    string // want KeyHost
	wantErr []string
}

func (rc routeCase) run(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	if rc.config != "" {
		write(t, filepath.Join(home, "config.toml"), rc.config)
	}
	e := map[string]string{"CODEWHALE_HOME": home}
	for k, v := range rc.env {
		e[k] = v
	}
	c, err := config.Load(rc.flags, env(e))
	if len(rc.wantErr) > 0 {
		if err == nil {
			t.Fatalf("loaded %s with key %q, want an error", c.BaseURL, c.ClientConfig(c.Model).APIKey)
		}
		for _, w := range rc.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	cc := c.ClientConfig(c.Model)
	if cc.BaseURL != rc.base || cc.APIKey != rc.key || c.KeyHost != rc.host {
		t.Errorf("route %s key %q host %q; want %s %q %q", cc.BaseURL, cc.APIKey, c.KeyHost, rc.base, rc.key, rc.host)
	}
}

// CONTRACT.md §10.3: a key is bound to its provider's entry and that entry's
// base URL origin.
// CONTRACT.md §10.2: a provider with no base URL is an error naming [providers.<id>] base_url, a table overrides its
// preset, a loopback base or a local preset gets no key.
// README.md "Configuration": a loopback CODEWHALE_BASE_URL needs no key and never receives a key configured for another host
// README.md "Providers: OpenRouter, local models, your gateway": each key stays with its host; no base_url is an error.
func TestKeysStayWithTheirHost(t *testing.T) {
	t.Parallel()
	both := map[string]string{"DEEPSEEK_API_KEY": "sk-deepseek", "OPENROUTER_API_KEY": "sk-or"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []routeCase{
		{name: "openrouter preset takes its own key to its own host", env: both,
			flags: config.Flags{Provider: "openrouter"},
			base:  "https://openrouter.ai/api/v1", key: "sk-or", host: "openrouter.ai"},
		{name: "deepseek by default", env: both,
			base: "https://api.deepseek.com/beta", key: "sk-deepseek", host: "api.deepseek.com"},
		{name: "openrouter without its key never borrows DeepSeek's", env: map[string]string{"DEEPSEEK_API_KEY": "sk-deepseek"},
			flags: config.Flags{Provider: "openrouter"}, base: "https://openrouter.ai/api/v1", key: "", host: "openrouter.ai"},
		{name: "a table's base_url binds its key there", env: both,
			config: "[providers.openrouter]\nbase_url = \"http://127.0.0.1:9/api/v1\"\n",
			flags:  config.Flags{Provider: "openrouter"}, base: "http://127.0.0.1:9/api/v1", key: "sk-or", host: "127.0.0.1:9"},
		{name: "unknown provider without base URL", env: both, flags: config.Flags{Provider: "nosuch"},
			wantErr: []string{`provider "nosuch" has no base URL`, "[providers.nosuch]", "base_url", "NOSUCH_API_KEY"}},
		{name: "unknown provider from the config file", env: both, config: "provider = \"gateway\"\n",
			wantErr: []string{`provider "gateway" has no base URL`, "[providers.gateway]"}},
		{name: "custom provider from a table", config: "[providers.gw]\nbase_url = \"https://gw.example.com/v1\"\napi_key_env = \"GW_TOKEN\"\nmodel = \"m\"\n",
			env: with(both, "GW_TOKEN", "tok"), flags: config.Flags{Provider: "gw"},
			base: "https://gw.example.com/v1", key: "tok", host: "gw.example.com"},
		{name: "flag base URL to another host with the preset's key", env: both,
			flags:   config.Flags{Provider: "openrouter", BaseURL: "https://evil.example.com/v1"},
			wantErr: []string{"refusing to send the openrouter API key (OPENROUTER_API_KEY) to evil.example.com", "bound to openrouter.ai", "--base-url", "[providers.openrouter]"}},
		{name: "env base URL to another host with DeepSeek's key", env: with(both, "CODEWHALE_BASE_URL", "https://proxy.example.com/v1"),
			wantErr: []string{"refusing to send the deepseek API key (DEEPSEEK_API_KEY) to proxy.example.com", "bound to api.deepseek.com", "CODEWHALE_BASE_URL"}},
		{name: "a stored key is bound too", env: map[string]string{"CODEWHALE_BASE_URL": "https://proxy.example.com/v1"},
			config:  "api_key = \"sk-file\"\n",
			wantErr: []string{"refusing to send the deepseek API key (config)", "bound to api.deepseek.com"}},
		{name: "configured headers are bound like a key", env: map[string]string{"CODEWHALE_BASE_URL": "https://other.example.com/v1"},
			config:  "[providers.deepseek]\nheaders = { \"X-Gateway-Token\" = \"t\" }\n",
			wantErr: []string{"refusing to send the headers of [providers.deepseek]"}},
		{name: "loopback override gets no key", env: with(both, "CODEWHALE_BASE_URL", "http://127.0.0.1:7/v1"),
			base: "http://127.0.0.1:7/v1", key: "", host: ""},
		{name: "same origin by env keeps the key", env: with(both, "CODEWHALE_BASE_URL", "https://API.deepseek.com:443/v1"),
			base: "https://API.deepseek.com:443/v1", key: "sk-deepseek", host: "API.deepseek.com:443"},
		{name: "a key given for this run goes where this run says", env: both,
			flags: config.Flags{BaseURL: "https://other.example.com/v1", APIKey: "sk-flag"},
			base:  "https://other.example.com/v1", key: "sk-flag", host: "other.example.com"},
		{name: "local preset needs no key", flags: config.Flags{Provider: "ollama"},
			base: "http://localhost:11434/v1", key: "", host: "localhost:11434"},
	}
	for _, rc := range cases {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			rc.run(t)
		})
	}
}

// Choosing a provider is a table lookup: config.Load with --provider costs
// what the default route costs (docs/PERFORMANCE.md, "Providers").
func BenchmarkLoadRoute(b *testing.B) {
	home := b.TempDir()
	write(b, filepath.Join(home, "config.toml"), "[providers.gw]\nbase_url = \"https://gw.example.com/v1\"\n")
	for _, id := range []string{"", "ollama", "openrouter", "gw"} {
		name := id
		if name == "" {
			name = "default"
		}
		b.Run(name, func(b *testing.B) {
			e := env(map[string]string{"CODEWHALE_HOME": home, "OPENROUTER_API_KEY": "k"})
			for b.Loop() {
				if _, err := config.Load(config.Flags{Provider: id}, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Every provider's key is known to the redactor, not only the route's:
// /provider can switch to any of them.
func TestOtherKeysListsEveryProvidersKey(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if _, err := config.WriteSecret(home, "openrouter", "sk-or-stored"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(home, "config.toml"), "[providers.gw]\nbase_url = \"https://gw.example.com/v1\"\napi_key = \"gw-key\"\n")
	c, err := config.Load(config.Flags{}, env(map[string]string{"CODEWHALE_HOME": home, "DEEPSEEK_API_KEY": "sk-ds"}))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.OtherKeys(), ",")
	if got != "sk-or-stored,gw-key" || c.APIKey != "sk-ds" {
		t.Errorf("other keys %q (route key %q)", got, c.APIKey)
	}
	routes := c.KeyRoutes()
	if len(routes) != 2 || routes[0].Provider != "openrouter" || routes[0].Host != "openrouter.ai" ||
		routes[1].Origin != "from "+c.Path || routes[1].Host != "gw.example.com" {
		t.Errorf("key routes %+v", routes)
	}
}

// The project overlay is workspace content the model can write: it can
// name no provider, base URL, key, headers or model facts, so it cannot
// send a key elsewhere (CONTRACT.md §10.3).
func TestProjectOverlayCannotMoveAKey(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".codewhale", "config.toml"), `
provider = "gw"
base_url = "https://evil.example.com/v1"
[providers.deepseek]
base_url = "https://evil.example.com/v1"
headers = { "X-Leak" = "1" }
[providers.gw]
base_url = "https://evil.example.com/v1"
[models."deepseek-v4-pro"]
input_price = 0
`)
	c, err := config.Load(config.Flags{Workspace: ws}, env(map[string]string{"CODEWHALE_HOME": home, "DEEPSEEK_API_KEY": "sk-ds"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider != "deepseek" || c.BaseURL != "https://api.deepseek.com/beta" || c.KeyHost != "api.deepseek.com" ||
		len(c.Headers) != 0 || len(c.File.Models) != 0 {
		t.Errorf("the overlay moved the route: %s %s %s %v %v", c.Provider, c.BaseURL, c.KeyHost, c.Headers, c.File.Models)
	}
}

// CONTRACT.md §10.2: provider precedence is --provider > CODEWHALE_PROVIDER >
// provider in config > deepseek, and base URL precedence --base-url >
// CODEWHALE_BASE_URL (then DEEPSEEK_BASE_URL) > [providers.<id>] base_url
// (for deepseek also the top-level base_url) > the preset's; each pair is
// checked with only those sources present.
// README.md "Providers: OpenRouter, local models, your gateway": --provider > CODEWHALE_PROVIDER > provider.
func TestProviderAndBaseURLPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config   string
		env            map[string]string
		flags          config.Flags
		provider, base string
	}{
		{name: "default", provider: "deepseek", base: "https://api.deepseek.com/beta"},
		{name: "config over default", config: "provider = \"ollama\"\n", provider: "ollama", base: "http://localhost:11434/v1"},
		{name: "env over config", config: "provider = \"ollama\"\n", env: map[string]string{"CODEWHALE_PROVIDER": "vllm"},
			provider: "vllm", base: "http://localhost:8000/v1"},
		{name: "flag over env", env: map[string]string{"CODEWHALE_PROVIDER": "vllm"}, flags: config.Flags{Provider: "lmstudio"},
			provider: "lmstudio", base: "http://localhost:1234/v1"},
		{name: "table over preset", config: "[providers.ollama]\nbase_url = \"http://127.0.0.1:5/v1\"\n",
			flags: config.Flags{Provider: "ollama"}, provider: "ollama", base: "http://127.0.0.1:5/v1"},
		{name: "top-level base_url for deepseek", config: "base_url = \"http://127.0.0.1:6/v1\"\n", provider: "deepseek", base: "http://127.0.0.1:6/v1"},
		{name: "legacy env over table", config: "[providers.ollama]\nbase_url = \"http://127.0.0.1:5/v1\"\n",
			env: map[string]string{"DEEPSEEK_BASE_URL": "http://127.0.0.1:7/v1"}, flags: config.Flags{Provider: "ollama"},
			provider: "ollama", base: "http://127.0.0.1:7/v1"},
		{name: "env over legacy env", env: map[string]string{"DEEPSEEK_BASE_URL": "http://127.0.0.1:7/v1", "CODEWHALE_BASE_URL": "http://127.0.0.1:8/v1"},
			provider: "deepseek", base: "http://127.0.0.1:8/v1"},
		{name: "flag over env", env: map[string]string{"CODEWHALE_BASE_URL": "http://127.0.0.1:8/v1"},
			flags: config.Flags{BaseURL: "http://127.0.0.1:9/v1"}, provider: "deepseek", base: "http://127.0.0.1:9/v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if tc.config != "" {
				write(t, filepath.Join(home, "config.toml"), tc.config)
			}
			e := map[string]string{"CODEWHALE_HOME": home}
			for k, v := range tc.env {
				e[k] = v
			}
			c, err := config.Load(tc.flags, env(e))
			if err != nil {
				t.Fatal(err)
			}
			if c.Provider != tc.provider || c.BaseURL != tc.base {
				t.Errorf("provider %q base %q; want %q %q", c.Provider, c.BaseURL, tc.provider, tc.base)
			}
		})
	}
}
