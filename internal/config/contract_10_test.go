package config_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/provider"
)

// load is config.Load over a fresh home holding body as config.toml ("" for
// none) and the variables of e.
func load(t *testing.T, body string, flags config.Flags, e map[string]string) (*config.Config, string, error) {
	t.Helper()
	home := t.TempDir()
	if body != "" {
		write(t, filepath.Join(home, "config.toml"), body)
	}
	m := map[string]string{"CODEWHALE_HOME": home}
	for k, v := range e {
		m[k] = v
	}
	c, err := config.Load(flags, env(m))
	return c, home, err
}

// CONTRACT.md §10.2: a [providers.<id>] table overrides its preset's row
// field by field: model, path_suffix, headers and context_window change,
// the base URL and key variables the table leaves unset stay the preset's.
// README.md "Providers: OpenRouter, local models, your gateway": [providers.<id>] overrides a preset's row.
func TestProviderTableOverridesThePresetFieldByField(t *testing.T) {
	t.Parallel()
	c, _, err := load(t, "[providers.openrouter]\nmodel = \"vendor/model-x\"\npath_suffix = \"api/chat\"\n"+
		"context_window = 64000\nheaders = { \"X-Title\" = \"codewhale\" }\n",
		config.Flags{Provider: "openrouter"}, map[string]string{"OPENROUTER_API_KEY": "sk-or"})
	if err != nil {
		t.Fatal(err)
	}
	cc := c.ClientConfig(c.Model)
	if cc.BaseURL != "https://openrouter.ai/api/v1" || cc.APIKey != "sk-or" || c.KeyEnv != "OPENROUTER_API_KEY" ||
		c.Model != "vendor/model-x" || cc.PathSuffix != "api/chat" || cc.Headers["X-Title"] != "codewhale" {
		t.Errorf("route %s key %q (%s) model %s suffix %q headers %v", cc.BaseURL, cc.APIKey, c.KeyEnv, c.Model, cc.PathSuffix, cc.Headers)
	}
	if info, _ := c.ModelTable().Resolve(c.Model, false); info.ContextWindow != 64000 {
		t.Errorf("context_window: the route's model has a %d-token window, want 64000", info.ContextWindow)
	}
	if got := provider.ChatURL(cc.BaseURL, false, cc.PathSuffix); got != "https://openrouter.ai/api/api/chat" {
		t.Errorf("path_suffix: requests go to %s", got)
	}
}

// CONTRACT.md §10.2: a [providers.<id>] table is the provider --provider
// names, whatever case either is written in (--provider is folded to lower
// case, so a table written [providers.MyGW] is the route mygw); two
// tables that differ only in case are refused.
func TestProviderTableIDsFoldCase(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"MyGW", "mygw"} {
		c, _, err := load(t, "[providers.MyGW]\nbase_url = \"https://gw.example.com/v1\"\nmodel = \"m\"\n",
			config.Flags{Provider: id}, map[string]string{"MYGW_API_KEY": "sk-gw"})
		if err != nil {
			t.Fatalf("--provider %s: %v", id, err)
		}
		if c.Provider != "mygw" || c.BaseURL != "https://gw.example.com/v1" || c.APIKey != "sk-gw" || c.Model != "m" {
			t.Errorf("--provider %s: provider %s base %s key %q model %s", id, c.Provider, c.BaseURL, c.APIKey, c.Model)
		}
	}
	_, _, err := load(t, "[providers.gw]\nbase_url = \"https://a.example.com/v1\"\n[providers.GW]\nbase_url = \"https://b.example.com/v1\"\n",
		config.Flags{Provider: "gw"}, nil)
	if err == nil || !strings.Contains(err.Error(), "[providers.GW]") || !strings.Contains(err.Error(), "[providers.gw]") {
		t.Errorf("two tables for one provider: %v", err)
	}
}

// CONTRACT.md §10.2: any base URL of a local preset works without a key (a
// server on another machine of the LAN), where a hosted route without one
// is refused before any request.
func TestLocalPresetNeedsNoKeyAnywhere(t *testing.T) {
	t.Parallel()
	c, _, err := load(t, "[providers.ollama]\nbase_url = \"https://gpu-box.example.net/v1\"\n", config.Flags{Provider: "ollama"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.New(c.ClientConfig("qwen3:8b")); err != nil {
		t.Errorf("a local preset on a LAN host without a key: %v", err)
	}
	c, _, err = load(t, "[providers.gw]\nbase_url = \"https://gw.example.com/v1\"\n", config.Flags{Provider: "gw"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mk provider.MissingKeyError
	if _, err := provider.New(c.ClientConfig("m")); !errors.As(err, &mk) {
		t.Errorf("a hosted route without a key: %v, want MissingKeyError", err)
	}
}

// CONTRACT.md §10.2: /provider <id> takes that provider's own entry: the
// starting route's --base-url, --api-key, --model and CODEWHALE_BASE_URL do
// not carry over.
func TestRouteSwitchTakesTheProvidersOwnEntry(t *testing.T) {
	t.Parallel()
	e := map[string]string{"CODEWHALE_BASE_URL": "http://127.0.0.1:7/v1", "CODEWHALE_MODEL": "env-model", "OPENROUTER_API_KEY": "sk-or"}
	for _, flags := range []config.Flags{{}, {BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-flag", Model: "flag-model"}} {
		c, _, err := load(t, "", flags, e)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Route("openrouter")
		if err != nil {
			t.Fatal(err)
		}
		cc := r.ClientConfig(r.Model)
		if r.Provider != "openrouter" || cc.BaseURL != "https://openrouter.ai/api/v1" || cc.APIKey != "sk-or" ||
			r.Model != "deepseek/deepseek-v4-pro" || r.KeySource != "env" {
			t.Errorf("flags %+v: switched to %s %s key %q (%s) model %s", flags, r.Provider, cc.BaseURL, cc.APIKey, r.KeySource, r.Model)
		}
	}
}

// CONTRACT.md §10.3: the environment is read in order: [providers.<id>]
// api_key_env, then the preset's variables in the preset's order, and
// <ID>_API_KEY for an id without a preset.
func TestKeyVariablesInOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config, id string
		env              map[string]string
		key, from        string
	}{
		{"api_key_env before the preset's variable", "[providers.openrouter]\napi_key_env = \"MY_OR_TOKEN\"\n", "openrouter",
			map[string]string{"MY_OR_TOKEN": "sk-mine", "OPENROUTER_API_KEY": "sk-preset"}, "sk-mine", "MY_OR_TOKEN"},
		{"the preset's variable when api_key_env is unset", "[providers.openrouter]\napi_key_env = \"MY_OR_TOKEN\"\n", "openrouter",
			map[string]string{"OPENROUTER_API_KEY": "sk-preset"}, "sk-preset", "OPENROUTER_API_KEY"},
		{"the preset's first variable", "", "lmstudio",
			map[string]string{"LMSTUDIO_API_KEY": "sk-first", "LM_API_TOKEN": "sk-second"}, "sk-first", "LMSTUDIO_API_KEY"},
		{"the preset's second variable", "", "lmstudio", map[string]string{"LM_API_TOKEN": "sk-second"}, "sk-second", "LM_API_TOKEN"},
		{"<ID>_API_KEY without a preset", "[providers.my-gw]\nbase_url = \"https://gw.example.com/v1\"\n", "my-gw",
			map[string]string{"MY_GW_API_KEY": "sk-gw", "DEEPSEEK_API_KEY": "sk-ds"}, "sk-gw", "MY_GW_API_KEY"},
		{"a table's api_key for its own provider", "[providers.openrouter]\napi_key = \"sk-table\"\n", "openrouter",
			map[string]string{"DEEPSEEK_API_KEY": "sk-ds"}, "sk-table", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := load(t, tc.config, config.Flags{Provider: tc.id}, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if c.APIKey != tc.key || c.KeyEnv != tc.from {
				t.Errorf("key %q from %q (%s), want %q from %q", c.APIKey, c.KeyEnv, c.KeySource, tc.key, tc.from)
			}
		})
	}
}

// CONTRACT.md §10.3: only the route's provider's entries are read: every
// source holding DeepSeek's key leaves OpenRouter without one, and a key
// stored for OpenRouter is not DeepSeek's. `auth set --provider <id>`
// stores the key under the id the route reads, whatever case it was typed
// in.
func TestOneProvidersKeyIsNeverAnothers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write(t, filepath.Join(home, "config.toml"), "api_key = \"sk-ds-top\"\n[providers.deepseek]\napi_key = \"sk-ds-table\"\n")
	if _, err := config.WriteSecret(home, "deepseek", "sk-ds-stored"); err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"CODEWHALE_HOME": home, "DEEPSEEK_API_KEY": "sk-ds-env"}
	c, err := config.Load(config.Flags{Provider: "openrouter"}, env(e))
	if err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "" || c.KeySource != "none" {
		t.Errorf("openrouter got the key %q from %s", c.APIKey, c.KeySource)
	}
	home = t.TempDir()
	if _, err := config.WriteSecret(home, "OpenRouter", "sk-or-stored"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"deepseek": "", "openrouter": "sk-or-stored", "OpenRouter": "sk-or-stored"} {
		c, err := config.Load(config.Flags{Provider: id}, env(map[string]string{"CODEWHALE_HOME": home}))
		if err != nil {
			t.Fatal(err)
		}
		if c.APIKey != want {
			t.Errorf("--provider %s: key %q (%s), want %q", id, c.APIKey, c.KeySource, want)
		}
	}
}

// CONTRACT.md §10.3: a loopback base URL named by CODEWHALE_BASE_URL gets
// the request without the entry's configured headers, as without its key.
func TestLoopbackOverrideWithholdsTheEntrysHeaders(t *testing.T) {
	t.Parallel()
	c, _, err := load(t, "[providers.deepseek]\nheaders = { \"X-Gateway-Token\" = \"t\" }\n", config.Flags{},
		map[string]string{"CODEWHALE_BASE_URL": "http://127.0.0.1:7/v1", "DEEPSEEK_API_KEY": "sk-ds"})
	if err != nil {
		t.Fatal(err)
	}
	cc := c.ClientConfig(c.Model)
	if _, ok := cc.Headers["X-Gateway-Token"]; ok || cc.APIKey != "" || !c.Withheld {
		t.Errorf("the loopback override got headers %v and key %q", cc.Headers, cc.APIKey)
	}
	c, _, err = load(t, "[providers.deepseek]\nheaders = { \"X-Gateway-Token\" = \"t\" }\n", config.Flags{}, nil)
	if err != nil || c.ClientConfig(c.Model).Headers["X-Gateway-Token"] != "t" {
		t.Errorf("the entry's own base URL lost its headers: %v", err)
	}
}

// CONTRACT.md §10.3: every outbound client comes from internal/httptransport
// (which honours HTTPS_PROXY, HTTP_PROXY, NO_PROXY and SSL_CERT_FILE): no
// production file outside it uses net/http's default client or transport,
// its package-level request helpers, or builds an http.Transport or an
// http.Client without a Transport.
// README.md "Providers: OpenRouter, local models, your gateway": every connection honours the proxy variables.
func TestOutboundClientsComeFromHTTPTransport(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "third_party" || d.Name() == "node_modules" ||
				rel == "internal/httptransport" || rel == "internal/testutil") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		httpName := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "net/http" {
				httpName = "http"
				if im.Name != nil {
					httpName = im.Name.Name
				}
			}
		}
		if httpName == "" {
			return nil
		}
		isHTTP := func(e ast.Expr, names ...string) bool {
			sel, ok := e.(*ast.SelectorExpr)
			if !ok {
				return false
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || id.Name != httpName {
				return false
			}
			for _, n := range names {
				if sel.Sel.Name == n {
					return true
				}
			}
			return false
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if isHTTP(n, "DefaultClient", "DefaultTransport", "Get", "Post", "PostForm", "Head") {
					t.Errorf("%s uses http.%s: build outbound clients with internal/httptransport", rel, n.Sel.Name)
				}
			case *ast.CompositeLit:
				switch {
				case isHTTP(n.Type, "Transport"):
					t.Errorf("%s builds an http.Transport: use httptransport.New", rel)
				case isHTTP(n.Type, "Client"):
					hasTransport := false
					for _, el := range n.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Transport" {
								hasTransport = true
							}
						}
					}
					if !hasTransport {
						t.Errorf("%s builds an http.Client without a Transport (net/http's default): give it one from internal/httptransport", rel)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 300 {
		t.Fatalf("only %d Go files checked; the walk is not reading the repository", checked)
	}
}
