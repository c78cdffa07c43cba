package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// CONTRACT.md §10.9: one table answers for every model — built-in rows, the
// server's list for models not built in, [models.<id>] over both, and
// conservative defaults (Known false) for the rest.
// CONTRACT.md §9.2: max_tokens: 65536 for a 1M window, min(window/2, 65536) below, 8192 for an unknown model, a stated
// cap first.
// README.md "Providers: OpenRouter, local models, your gateway": where model facts come from.
func TestModelTableLayers(t *testing.T) {
	t.Parallel()
	yes, in, out := true, 2.0, 8.0
	table := &ModelTable{
		Overrides: map[string]ModelOverride{"gw-model": {ContextWindow: 200_000, Vision: &yes, Input: &in, Output: &out},
			"deepseek-v4-pro": {MaxOutput: 1000}},
		Live: func() []LiveModel {
			return []LiveModel{{ID: "or/model", ContextWindow: 262_144, MaxOutput: 32_000, Vision: &yes,
				Price: &Price{Input: 0.5, CachedInput: 0.5, Output: 1}}}
		},
	}
	cases := []struct {
		id                    string
		window, maxOut        int
		vision, priced, known bool
		source                string
	}{
		{"deepseek-v4-pro", 1_000_000, 1000, false, true, true, "config"},
		{"deepseek-v4-flash", 1_000_000, 65536, false, true, true, "built-in"},
		{"or/model", 262_144, 32_000, true, true, true, "server"},
		{"gw-model", 200_000, 65536, true, true, true, "config"},
		{"mystery", 0, 8192, false, false, false, "assumed"},
	}
	for _, c := range cases {
		info, _ := table.Resolve(c.id, true)
		if info.ContextWindow != c.window || MaxOutputTokens(info) != c.maxOut || info.Vision != c.vision ||
			info.Priced != c.priced || info.Known != c.known || info.Source != c.source || !info.Tools {
			t.Errorf("%s: %+v (max out %d)", c.id, info, MaxOutputTokens(info))
		}
	}
	if info, _ := table.Resolve("mystery", true); info.Window() != AssumedContextWindow {
		t.Errorf("assumed window %d", info.Window())
	}
	if info, _ := table.Resolve("gw-model", true); info.Price != (Price{Input: 2, CachedInput: 2, Output: 8}) {
		t.Errorf("configured price %+v", info.Price)
	}
	free := &ModelTable{Free: true}
	if info, _ := free.Resolve("qwen3:8b", false); !info.Priced || info.Price != (Price{}) || info.Known {
		t.Errorf("a local server's model: %+v", info)
	}
}

// The /models answer is read in the OpenAI shape and OpenRouter's richer
// one; the cache serves it for the TTL and is keyed by the base URL.
func TestModelListAndCache(t *testing.T) {
	t.Parallel()
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if r.URL.Path != "/api/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "unexpected "+r.URL.Path, 404)
			return
		}
		w.Write([]byte(`{"data":[{"id":"deepseek/deepseek-v4-pro","context_length":1048576,` +
			`"architecture":{"input_modalities":["text"]},"top_provider":{"max_completion_tokens":65536},` +
			`"supported_parameters":["tools","reasoning"],"pricing":{"prompt":"0.00000132","completion":"0.00000396"}},` +
			`{"id":"plain","object":"model"},{"id":"varies","pricing":{"prompt":"-1","completion":"-1"}}]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{ProviderID: "openrouter", Provider: "OpenRouter", BaseURL: srv.URL + "/api/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	mc := ModelCache{Dir: t.TempDir(), TTL: time.Minute, Now: func() time.Time { return now }}
	models, err := mc.Models(context.Background(), c, false)
	if err != nil || len(models) != 3 {
		t.Fatalf("%v %+v", err, models)
	}
	m := models[0]
	if m.ContextWindow != 1048576 || m.MaxOutput != 65536 || *m.Vision || !*m.Tools || !*m.Reasoning ||
		m.Price == nil || m.Price.Input < 1.3199 || m.Price.Input > 1.3201 || models[1].Price != nil || models[2].Price != nil {
		t.Errorf("parsed %+v %+v", m, *m.Price)
	}
	if _, err := mc.Models(context.Background(), c, false); err != nil || calls != 1 {
		t.Errorf("within the TTL: %v, %d calls", err, calls)
	}
	now = now.Add(2 * time.Minute)
	if _, err := mc.Models(context.Background(), c, false); err != nil || calls != 2 {
		t.Errorf("after the TTL: %v, %d calls", err, calls)
	}
	if _, _, ok := mc.Load("openrouter", "https://elsewhere.example.com/v1"); ok {
		t.Error("a list cached for another base URL was returned")
	}
	if id, err := mc.ServerDefaultModel(context.Background(), c); err != nil || id != "deepseek/deepseek-v4-pro" {
		t.Errorf("default %q %v", id, err)
	}
}
