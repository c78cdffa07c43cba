package provider

import "testing"

// The model table is the one source of model facts: every row is usable,
// ids (and billed-as spellings) are unique, and the default model is in it.
// CONTRACT.md §10.1: the default model is a row of the table, and the legacy deepseek-reasoner maps to
// deepseek-v4-flash with effort high.
func TestModelTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, m := range Models() {
		for _, id := range append([]string{m.ID}, m.BilledAs...) {
			if seen[id] {
				t.Errorf("%s appears twice", id)
			}
			seen[id] = true
			if got, ok := LookupModel(id); !ok || got.ID != m.ID {
				t.Errorf("LookupModel(%s) = %v, %v", id, got.ID, ok)
			}
		}
		if m.ContextWindow <= 0 || m.Price.Input <= 0 || m.Price.Output <= 0 || m.Price.CachedInput <= 0 || m.Hint == "" {
			t.Errorf("incomplete row %+v", m)
		}
		if info, _ := ResolveModel(m.ID, true); !info.Known || info.ContextWindow != m.ContextWindow {
			t.Errorf("ResolveModel(%s) = %+v", m.ID, info)
		}
	}
	if _, ok := LookupModel(DefaultModel); !ok {
		t.Errorf("the default model %s is not in the table", DefaultModel)
	}
	if info, effort := ResolveModel("deepseek-reasoner", true); info.ID != "deepseek-v4-flash" || !info.Known || effort != "high" {
		t.Errorf("legacy id: %+v %s", info, effort)
	}
}

// A configured output cap replaces the per-model one on the client.
func TestClientOutputCap(t *testing.T) {
	t.Parallel()
	info, _ := ResolveModel("deepseek-v4-pro", true)
	for _, c := range []struct{ override, want int }{{0, 65536}, {1234, 1234}} {
		cl, err := New(Config{BaseURL: "http://127.0.0.1:1", Model: "deepseek-v4-pro", MaxOutputTokens: c.override})
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.MaxOutputTokens(info); got != c.want {
			t.Errorf("override %d: %d, want %d", c.override, got, c.want)
		}
	}
	if n := MaxOutputTokens(ModelInfo{ID: "mystery"}); n != 8192 {
		t.Errorf("unknown model cap %d", n)
	}
}
