package tools_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

type warmIn struct {
	Path string `json:"path"`
}

// WarmSchemas derives every declared contract's full schema, once: a turn
// asking for the same schema while it runs gets the one derivation (the
// same map), and asking afterwards derives nothing; a contract whose
// schema cannot be derived does not stop the others or panic off the
// caller's goroutine.
func TestWarmSchemasDerivesEachContractOnce(t *testing.T) {
	var derived atomic.Int32
	p := tools.NewParams[warmIn]("Warm", tools.ParamOptions[warmIn]{Shape: func(*jsonschema.Schema, []string) {
		derived.Add(1)
	}})
	tools.NewParams[warmIn]("Broken", tools.ParamOptions[warmIn]{Enums: map[string][]string{"nope": {"x"}}})
	var wg sync.WaitGroup
	got := make([]map[string]any, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = p.Schema()
		}()
	}
	tools.WarmSchemas()
	wg.Wait()
	if n := derived.Load(); n != 1 {
		t.Fatalf("derived %d times, want once", n)
	}
	for _, s := range got {
		if s["properties"] == nil || !sameMap(s, got[0]) {
			t.Fatalf("callers got different schemas: %v vs %v", s, got[0])
		}
	}
	tools.WarmSchemas()
	_ = p.Schema()
	if n := derived.Load(); n != 1 {
		t.Fatalf("derived %d times after warming, want once", n)
	}
}

// sameMap reports whether a and b are the same map value (not equal ones).
func sameMap(a, b map[string]any) bool {
	a["\x00probe"] = true
	defer delete(a, "\x00probe")
	return b["\x00probe"] == true
}
