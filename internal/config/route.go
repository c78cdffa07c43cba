package config

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
)

// A route is a provider, its base URL and its key. Each key is bound to the
// provider entry it was configured for and to that entry's base URL origin
// (CONTRACT.md §10.3): a base URL changed by --base-url or
// CODEWHALE_BASE_URL never receives a key that was configured for another
// server. This file is the one place that decision is made.

// entry is what the configuration says about one provider: its preset row
// (if any), its [providers.<id>] table, and the base URL its keys are bound
// to.
type entry struct {
	id        string
	preset    provider.Preset
	hasPreset bool
	table     ProviderTable
	home      string // the entry's own base URL: table, legacy top-level (deepseek), preset
	homeFrom  string // "config" or "default"
}

func (c *Config) entry(id string) entry {
	e := entry{id: id, table: c.File.Providers[id]}
	e.preset, e.hasPreset = provider.LookupPreset(id)
	switch {
	case e.table.BaseURL != "":
		e.home, e.homeFrom = e.table.BaseURL, "config"
	case id == "deepseek" && c.File.BaseURL != "":
		e.home, e.homeFrom = c.File.BaseURL, "config"
	case e.hasPreset:
		e.home, e.homeFrom = e.preset.BaseURL, "default"
	}
	return e
}

// keyEnv lists the variables that may hold the entry's key, in order.
func (e entry) keyEnv() []string {
	var names []string
	if e.table.APIKeyEnv != "" {
		names = append(names, e.table.APIKeyEnv)
	}
	if e.hasPreset {
		return append(names, e.preset.KeyEnv...)
	}
	return append(names, provider.KeyEnvName(e.id))
}

// resolveRoute sets the provider, base URL, model, key and headers.
func (c *Config) resolveRoute(flags Flags, env Env) error {
	f := &c.File
	fileProvider := firstNonEmpty(f.Provider, "deepseek")
	c.Provider = strings.ToLower(firstNonEmpty(flags.Provider, env.first("CODEWHALE_PROVIDER", "DEEPSEEK_PROVIDER"), fileProvider))
	e := c.entry(c.Provider)
	switch {
	case flags.BaseURL != "":
		c.BaseURL, c.BaseSource = flags.BaseURL, "flag"
	case env.first("CODEWHALE_BASE_URL", "DEEPSEEK_BASE_URL") != "":
		c.BaseURL, c.BaseSource = env.first("CODEWHALE_BASE_URL", "DEEPSEEK_BASE_URL"), "env"
	case e.home != "":
		c.BaseURL, c.BaseSource = e.home, e.homeFrom
	default:
		return c.unknownProvider(e)
	}
	var fileModel []string
	if c.Provider == fileProvider {
		fileModel = []string{f.Model, f.DefaultTextModel}
	}
	c.Model = firstNonEmpty(append(append([]string{flags.Model,
		env.first("CODEWHALE_MODEL", "DEEPSEEK_MODEL", "DEEPSEEK_DEFAULT_TEXT_MODEL")}, fileModel...),
		e.table.Model, e.preset.Model)...)
	c.PathSuffix = e.table.PathSuffix
	c.KeyOptional = e.preset.Local
	c.APIKey, c.KeySource, c.KeyEnv = c.resolveKey(flags, env, e)
	c.Headers = maps.Clone(e.table.Headers)
	if h := env.first("DEEPSEEK_HTTP_HEADERS", "CODEWHALE_HTTP_HEADERS"); h != "" {
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		maps.Copy(c.Headers, provider.ParseHeaderList(h))
	}
	return c.bindKey(e)
}

// unknownProvider is the error for a provider with no preset and no base
// URL anywhere: never a silent fall-back to another provider's server.
func (c *Config) unknownProvider(e entry) error {
	var ids []string
	for _, p := range provider.Presets() {
		ids = append(ids, p.ID)
	}
	return fmt.Errorf("provider %q has no base URL: it is not a built-in preset (%s) and %s has no "+
		"[providers.%s] base_url; add\n  [providers.%s]\n  base_url = \"https://…/v1\"\n  api_key_env = \"%s\"\n"+
		"to it, or pass --base-url", e.id, strings.Join(ids, ", "), c.Path, e.id, e.id, provider.KeyEnvName(e.id))
}

// resolveKey follows CONTRACT.md §10.3: --api-key, then the environment
// (api_key_env, then the preset's variables), then the config file, then
// the secrets store written by `codewhale auth set`. It returns the key,
// its source and, for an environment key, the variable's name.
func (c *Config) resolveKey(flags Flags, env Env, e entry) (key, source, envName string) {
	if flags.APIKey != "" {
		return flags.APIKey, "flag", ""
	}
	for _, n := range e.keyEnv() {
		if v := env.first(n); v != "" {
			return v, "env", n
		}
	}
	if e.table.APIKey != "" {
		return e.table.APIKey, "config", ""
	}
	if e.id == "deepseek" && c.File.APIKey != "" {
		return c.File.APIKey, "config", ""
	}
	if k, err := ReadSecret(c.Home, e.id); err == nil && k != "" {
		return k, "secret store", ""
	}
	return "", "none", ""
}

// bindKey checks that the key (and the entry's configured headers, which
// may carry one) go only to the origin they are bound to. A base URL that
// --base-url or CODEWHALE_BASE_URL moved to another origin is refused when
// it would receive them; a loopback one gets the request without them (a
// server on this machine needs no key, and the key stays bound).
func (c *Config) bindKey(e entry) error {
	c.KeyHost = provider.Host(c.BaseURL)
	moved := (c.BaseSource == "flag" || c.BaseSource == "env") && e.home != "" &&
		provider.KeyOrigin(c.BaseURL) != provider.KeyOrigin(e.home)
	secret := (c.APIKey != "" && c.KeySource != "flag") || len(e.table.Headers) > 0
	if !moved || !secret {
		return nil
	}
	c.KeyBoundTo = provider.Host(e.home)
	if provider.IsLoopback(c.BaseURL) {
		if c.APIKey != "" && c.KeySource != "flag" {
			c.Withheld, c.KeyHost = true, ""
		}
		for k := range e.table.Headers {
			delete(c.Headers, k)
		}
		return nil
	}
	what := "the " + e.id + " API key (" + c.keySourceText() + ")"
	if c.APIKey == "" || c.KeySource == "flag" {
		what = "the headers of [providers." + e.id + "]"
	}
	via := "--base-url"
	if c.BaseSource == "env" {
		via = "CODEWHALE_BASE_URL"
	}
	return fmt.Errorf("refusing to send %s to %s: it is bound to %s, and the base URL %s came from %s.\n"+
		"To use that server with this key, set base_url under [providers.%s] in %s (the key is then bound there); "+
		"to use it with another key, pass that key with --api-key-file or choose its own provider with --provider",
		what, provider.Host(c.BaseURL), c.KeyBoundTo, c.BaseURL, via, e.id, c.Path)
}

// keySourceText says where the key came from: "DEEPSEEK_API_KEY",
// "config", "secret store", "flag".
func (c *Config) keySourceText() string {
	if c.KeySource == "env" && c.KeyEnv != "" {
		return c.KeyEnv
	}
	return c.KeySource
}

// KeyOrigin says where the route's key comes from, for doctor and
// `auth status`: "from DEEPSEEK_API_KEY", "from the secret store".
func (c *Config) KeyOrigin() string {
	switch c.KeySource {
	case "env":
		return "from " + c.KeyEnv
	case "secret store":
		return "from the secret store"
	case "config":
		return "from " + c.Path
	case "flag":
		return "from --api-key"
	}
	return "none"
}

// ProviderDisplayName is the provider's name as its makers spell it
// ("DeepSeek", "OpenRouter"); an id without a preset is shown as written.
func ProviderDisplayName(id string) string {
	if p, ok := provider.LookupPreset(id); ok {
		return p.Name
	}
	switch id {
	case "openai":
		return "OpenAI"
	case "xai":
		return "xAI"
	}
	return id
}

// ClientConfig is the provider client configuration for model. A withheld
// key (bindKey) is not handed to the client.
func (c *Config) ClientConfig(model string) provider.Config {
	key := c.APIKey
	if c.Withheld {
		key = ""
	}
	return provider.Config{Provider: ProviderDisplayName(c.Provider), ProviderID: c.Provider, BaseURL: c.BaseURL,
		APIKey: key, KeyOptional: c.KeyOptional, KeyEnv: c.keyEnvHint(), Model: model, PathSuffix: c.PathSuffix,
		Retry: c.Retry, OpenTimeout: c.OpenTimeout, IdleTimeout: c.IdleTimeout, RequestTimeout: c.RequestTimeout,
		Headers: c.Headers, AllowInsecureHTTP: c.AllowInsecureHTTP, MaxOutputTokens: c.MaxOutputTokens,
		Models: c.ModelTable(), Quirks: c.Quirks, CertFile: c.Env("SSL_CERT_FILE")}
}

// NewClient builds the route's client for model. A route that names no
// model (a local server's preset) uses the server's first listed model,
// asked for here, at the first request (ModelCache.ServerDefaultModel).
func (c *Config) NewClient(ctx context.Context, model, userAgent string) (*provider.Client, error) {
	cc := c.ClientConfig(model)
	cc.UserAgent = userAgent
	client, err := provider.New(cc)
	if err != nil || model != "" {
		return client, err
	}
	if cc.Model, err = c.ModelCache().ServerDefaultModel(ctx, client); err != nil {
		return nil, err
	}
	return provider.New(cc)
}

// keyEnvHint is the variable a missing-key message tells the user to set.
func (c *Config) keyEnvHint() string {
	if names := c.entry(c.Provider).keyEnv(); len(names) > 0 {
		return names[0]
	}
	return provider.KeyEnvName(c.Provider)
}

// KeyRoute is one provider's available key and the host it is bound to.
type KeyRoute struct {
	Provider string
	Origin   string // "from OPENROUTER_API_KEY"
	Host     string // "" when the entry has no base URL
}

// KeyRoutes lists the providers other than the route's that have a key
// available (environment, config file or secrets store), each with the
// host its key would go to: doctor shows where every key goes.
func (c *Config) KeyRoutes() []KeyRoute {
	var out []KeyRoute
	for _, id := range c.ProviderIDs() {
		if id == c.Provider {
			continue
		}
		e := c.entry(id)
		key, src, envName := c.resolveKey(Flags{}, c.Env, e)
		if key == "" {
			continue
		}
		k := &Config{KeySource: src, KeyEnv: envName, Path: c.Path}
		out = append(out, KeyRoute{Provider: id, Origin: k.KeyOrigin(), Host: provider.Host(e.home)})
	}
	return out
}

// OtherKeys are the keys of the providers other than the route's (the
// ones KeyRoutes lists), for the redactor.
func (c *Config) OtherKeys() []string {
	var out []string
	for _, id := range c.ProviderIDs() {
		if id == c.Provider {
			continue
		}
		if key, _, _ := c.resolveKey(Flags{}, c.Env, c.entry(id)); key != "" {
			out = append(out, key)
		}
	}
	return out
}

// ProxyVars names the proxy and trust-store variables set in the
// environment, with any credentials in a proxy URL redacted.
func (c *Config) ProxyVars() []string {
	var out []string
	for _, n := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
		"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		v := c.Env(n)
		if v == "" {
			continue
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			v = u.Redacted()
		}
		out = append(out, n+"="+v)
	}
	return out
}

// routeEnv are the variables that choose the starting route and so do not
// follow a switch to another provider.
var routeEnv = map[string]bool{"CODEWHALE_BASE_URL": true, "DEEPSEEK_BASE_URL": true, "CODEWHALE_MODEL": true,
	"DEEPSEEK_MODEL": true, "DEEPSEEK_DEFAULT_TEXT_MODEL": true, "CODEWHALE_PROVIDER": true, "DEEPSEEK_PROVIDER": true}

// Route is this configuration with provider id's route instead: its base
// URL, model, key and headers from its own entry (CONTRACT.md §10.3), as
// /provider switches to it. The starting route's flags and
// CODEWHALE_BASE_URL are not carried over.
func (c *Config) Route(id string) (*Config, error) {
	r := *c
	r.KeyHost, r.KeyBoundTo, r.Withheld, r.KeyEnv = "", "", false, ""
	r.Quirks = &provider.Quirks{}
	env := func(k string) string {
		if routeEnv[k] {
			return ""
		}
		return c.Env(k)
	}
	if err := r.resolveRoute(Flags{Provider: id}, env); err != nil {
		return nil, err
	}
	return &r, nil
}

// ProviderIDs lists the presets, then the [providers.<id>] tables that are
// not presets, for pickers.
func (c *Config) ProviderIDs() []string {
	var ids []string
	for _, p := range provider.Presets() {
		ids = append(ids, p.ID)
	}
	for _, id := range slices.Sorted(maps.Keys(c.File.Providers)) {
		if _, ok := provider.LookupPreset(id); !ok {
			ids = append(ids, id)
		}
	}
	return ids
}
