package provider

import "testing"

// The model table is the one source of model facts: every row is usable,
// ids (and billed-as spellings) are unique, and the default model is in it.
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
