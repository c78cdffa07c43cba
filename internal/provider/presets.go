package provider

import (
	"net/url"
	"strings"
)

// Preset is one row of the built-in provider table (CONTRACT.md §10.2): the
// values a `--provider <ID>` route starts from before [providers.<ID>] in
// config.toml overrides them. A provider is data, never code of its own;
// what servers do differently on the wire is handled for every route
// alike (wire.go, sse.go).
type Preset struct {
	ID      string // the --provider value and the [providers.<ID>] table name
	Name    string // as its makers spell it
	BaseURL string
	// KeyEnv are the environment variables that hold the provider's key,
	// first hit wins.
	KeyEnv []string
	// Model is the default model; "" means the server's own: the first id
	// its /models lists (a local server serves what was loaded into it).
	Model string
	// KeyURL is where a key is created; "" for servers on this machine.
	KeyURL string
	// Local marks a server people run on their own machine: no key needed
	// on loopback, and its models cost nothing per token.
	Local bool
}

// presets is the provider table. Adding a provider is adding a row.
var presets = []Preset{
	{ID: "deepseek", Name: "DeepSeek", BaseURL: DefaultBaseURL, KeyEnv: []string{"DEEPSEEK_API_KEY"},
		Model: DefaultModel, KeyURL: "https://platform.deepseek.com/api_keys"},
	{ID: "openrouter", Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: []string{"OPENROUTER_API_KEY"},
		Model: "deepseek/deepseek-v4-pro", KeyURL: "https://openrouter.ai/settings/keys"},
	{ID: "ollama", Name: "Ollama", BaseURL: "http://localhost:11434/v1", KeyEnv: []string{"OLLAMA_API_KEY"}, Local: true},
	{ID: "vllm", Name: "vLLM", BaseURL: "http://localhost:8000/v1", KeyEnv: []string{"VLLM_API_KEY"}, Local: true},
	{ID: "lmstudio", Name: "LM Studio", BaseURL: "http://localhost:1234/v1", KeyEnv: []string{"LMSTUDIO_API_KEY", "LM_API_TOKEN"}, Local: true},
	{ID: "sglang", Name: "SGLang", BaseURL: "http://localhost:30000/v1", KeyEnv: []string{"SGLANG_API_KEY"}, Local: true},
}

// Presets returns the provider table in listing order.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// LookupPreset finds the row of id (exact, lower case).
func LookupPreset(id string) (Preset, bool) {
	for _, p := range presets {
		if p.ID == id {
			return p, true
		}
	}
	return Preset{}, false
}

// KeyEnvName is the conventional key variable of a provider id without a
// preset: upper case, anything but letters and digits as `_`, then
// `_API_KEY` ("my-gateway" → MY_GATEWAY_API_KEY).
func KeyEnvName(id string) string {
	b := []byte(strings.ToUpper(id))
	for i, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b) + "_API_KEY"
}

// KeyOrigin is the scheme, host and port a credential is bound to
// (CONTRACT.md §10.3): "https://api.deepseek.com:443". Host names are
// lower-cased and the default port is made explicit, so two spellings of
// one server compare equal; "" for a URL that does not parse.
func KeyOrigin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// Host is the host (and port, when given) of a URL, for messages.
func Host(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Host
}
