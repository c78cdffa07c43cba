package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// LiveModel is one entry of a server's GET {base}/models answer. The
// OpenAI shape has only the id; OpenRouter adds the window, the output cap,
// modalities, parameters and per-token prices, vLLM the window
// (max_model_len). Nil or zero fields were not stated.
type LiveModel struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"context_window,omitempty"`
	MaxOutput     int    `json:"max_output,omitempty"`
	Vision        *bool  `json:"vision,omitempty"`
	Tools         *bool  `json:"tools,omitempty"`
	Reasoning     *bool  `json:"reasoning,omitempty"`
	Price         *Price `json:"price,omitempty"`
}

func (l LiveModel) apply(m *ModelInfo) {
	m.Known, m.Source = true, "server"
	m.ContextWindow, m.MaxOutput = l.ContextWindow, l.MaxOutput
	for _, f := range []struct {
		src *bool
		dst *bool
	}{{l.Vision, &m.Vision}, {l.Reasoning, &m.Reasoning}, {l.Tools, &m.Tools}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if l.Price != nil {
		m.Price, m.Priced = *l.Price, true
	}
}

// wireModel is one /models entry as servers send it.
type wireModel struct {
	ID            string `json:"id"`
	ContextLength int    `json:"context_length"` // OpenRouter
	MaxModelLen   int    `json:"max_model_len"`  // vLLM
	TopProvider   struct {
		MaxCompletionTokens int `json:"max_completion_tokens"`
	} `json:"top_provider"`
	Architecture struct {
		InputModalities []string `json:"input_modalities"`
	} `json:"architecture"`
	SupportedParameters []string `json:"supported_parameters"`
	Pricing             *struct {
		Prompt     string `json:"prompt"`
		Completion string `json:"completion"`
		CacheRead  string `json:"input_cache_read"`
	} `json:"pricing"`
}

func (w wireModel) live() LiveModel {
	l := LiveModel{ID: w.ID, ContextWindow: max(w.ContextLength, w.MaxModelLen), MaxOutput: w.TopProvider.MaxCompletionTokens}
	if w.Architecture.InputModalities != nil {
		v := contains(w.Architecture.InputModalities, "image")
		l.Vision = &v
	}
	if w.SupportedParameters != nil {
		tools, reasoning := contains(w.SupportedParameters, "tools"), contains(w.SupportedParameters, "reasoning")
		l.Tools, l.Reasoning = &tools, &reasoning
	}
	if p := w.Pricing; p != nil {
		in, errIn := strconv.ParseFloat(p.Prompt, 64)
		out, errOut := strconv.ParseFloat(p.Completion, 64)
		if errIn == nil && errOut == nil && in >= 0 && out >= 0 { // OpenRouter's -1 is "varies"
			price := Price{Input: in * 1e6, Output: out * 1e6, CachedInput: in * 1e6}
			if c, err := strconv.ParseFloat(p.CacheRead, 64); err == nil && c >= 0 {
				price.CachedInput = c * 1e6
			}
			l.Price = &price
		}
	}
	return l
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ModelsURL is the model list of base: the chat URL with chat/completions
// replaced by models (CONTRACT.md §10.1's rules decide the version
// segment).
func ModelsURL(base, pathSuffix string) string {
	chat := ChatURL(base, false, pathSuffix)
	if s, ok := strings.CutSuffix(chat, "/chat/completions"); ok {
		return s + "/models"
	}
	return strings.TrimRight(base, "/") + "/models"
}

// maxModelList bounds a /models answer (OpenRouter's is about 1 MB).
const maxModelList = 16 << 20

// ListModels asks the route's server for its models: GET {base}/models,
// with the route's key and headers, bounded by the first-byte deadline.
func (c *Client) ListModels(ctx context.Context) ([]LiveModel, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.OpenTimeout+30*time.Second)
	defer cancel()
	url := ModelsURL(c.cfg.BaseURL, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &NetworkError{Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxModelList+1))
	if err != nil {
		return nil, &NetworkError{Err: err}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &HTTPError{Status: resp.StatusCode, Message: sanitizeBody(raw, c.cfg.APIKey),
			Provider: c.cfg.ProviderID, Name: c.cfg.Provider, KeyEnv: c.cfg.KeyEnv, NoKey: c.cfg.APIKey == ""}
	}
	if len(raw) > maxModelList {
		return nil, &LimitError{What: "model list", Limit: maxModelList}
	}
	var body struct {
		Data []wireModel `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("%s answered %s with something other than an OpenAI model list: %w", c.cfg.Provider, url, err)
	}
	out := make([]LiveModel, 0, len(body.Data))
	for _, w := range body.Data {
		if w.ID != "" {
			out = append(out, w.live())
		}
	}
	return out, nil
}

// ModelCache keeps each provider's model list in Dir for TTL, so /model,
// `codewhale models` and a local server's default model cost one request
// per TTL, made when first needed (never at start-up).
type ModelCache struct {
	Dir string
	TTL time.Duration
	Now func() time.Time // nil: time.Now
}

// DefaultModelTTL is how long a fetched model list is used.
const DefaultModelTTL = 10 * time.Minute

// cachedList is the file of one provider's list.
type cachedList struct {
	BaseURL   string      `json:"base_url"`
	FetchedAt time.Time   `json:"fetched_at"`
	Models    []LiveModel `json:"models"`
}

func (mc ModelCache) path(provider string) string {
	return filepath.Join(mc.Dir, strings.NewReplacer("/", "_", "\\", "_", "..", "_").Replace(provider)+".json")
}

func (mc ModelCache) now() time.Time {
	if mc.Now != nil {
		return mc.Now()
	}
	return time.Now()
}

// Load returns the cached list of provider for base, and whether it is
// within the TTL. A list fetched from another base URL is not returned.
func (mc ModelCache) Load(provider, base string) (models []LiveModel, fresh, ok bool) {
	if mc.Dir == "" {
		return nil, false, false
	}
	raw, err := os.ReadFile(mc.path(provider))
	if err != nil {
		return nil, false, false
	}
	var c cachedList
	if json.Unmarshal(raw, &c) != nil || c.BaseURL != base {
		return nil, false, false
	}
	ttl := mc.TTL
	if ttl <= 0 {
		ttl = DefaultModelTTL
	}
	return c.Models, mc.now().Sub(c.FetchedAt) < ttl, true
}

// Save stores provider's list for base.
func (mc ModelCache) Save(provider, base string, models []LiveModel) error {
	if mc.Dir == "" {
		return nil
	}
	raw, err := json.Marshal(cachedList{BaseURL: base, FetchedAt: mc.now().UTC(), Models: models})
	if err != nil {
		return err
	}
	return atomicfile.Write(mc.path(provider), raw, 0o600, false)
}

// Models returns the route's model list: the cached one within the TTL,
// else a fresh GET (saved), else — when the server cannot be reached — a
// stale cached list with the error. refresh skips the cache.
func (mc ModelCache) Models(ctx context.Context, c *Client, refresh bool) ([]LiveModel, error) {
	id, base := c.cfg.ProviderID, c.cfg.BaseURL
	cached, fresh, ok := mc.Load(id, base)
	if ok && fresh && !refresh {
		return cached, nil
	}
	models, err := c.ListModels(ctx)
	if err != nil {
		if ok {
			return cached, fmt.Errorf("showing the list cached at an earlier time: %w", err)
		}
		return nil, err
	}
	if err := mc.Save(id, base, models); err != nil {
		return models, fmt.Errorf("the model list could not be cached: %w", err)
	}
	return models, nil
}

// ErrNoModels is the error of a server whose list is empty.
var ErrNoModels = errors.New("the server lists no models")

// ServerDefaultModel is the model of a route that names none: the first id
// the server lists (a local server serves what was loaded into it).
func (mc ModelCache) ServerDefaultModel(ctx context.Context, c *Client) (string, error) {
	models, err := mc.Models(ctx, c, false)
	if len(models) > 0 {
		return models[0].ID, nil
	}
	if err == nil {
		err = ErrNoModels
	}
	return "", fmt.Errorf("%s at %s names no model to use (%w); load one into the server, or pass --model "+
		"or set model under [providers.%s]", c.cfg.Provider, c.cfg.BaseURL, err, c.cfg.ProviderID)
}
