package tools_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

type memoIn struct {
	Path string `json:"path"`
}

type brokenIn struct {
	Path string `json:"path"`
}

// A contract the generated table does not hold (here, one declared only in
// this test) is derived from its type, once: callers asking at the same
// time get the one derivation (the same map), and later ones derive
// nothing.
func TestSchemaIsDerivedOnceWithoutAGeneratedRow(t *testing.T) {
	var derived atomic.Int32
	p := tools.NewParams[memoIn]("Memo", tools.ParamOptions[memoIn]{Shape: func(*jsonschema.Schema, []string) {
		derived.Add(1)
	}})
	if _, ok := tools.GeneratedSchema("tools_test.memoIn"); ok {
		t.Fatal("the generated table holds a contract declared only by this test")
	}
	var wg sync.WaitGroup
	got := make([]map[string]any, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = p.Schema()
		}()
	}
	wg.Wait()
	_ = p.Schema()
	if n := derived.Load(); n != 1 {
		t.Fatalf("derived %d times, want once", n)
	}
	props, _ := got[0]["properties"].(map[string]any)
	if props["path"] == nil {
		t.Fatalf("the derived schema has no path property: %v", got[0])
	}
	for _, s := range got {
		if !sameMap(s, got[0]) {
			t.Fatalf("callers got different schemas: %v vs %v", s, got[0])
		}
	}
}

// DeriveDeclaredSchemas, what the generated table is checked against,
// reports a contract whose schema cannot be derived instead of skipping it.
func TestDeriveDeclaredSchemasReportsABrokenContract(t *testing.T) {
	tools.NewParams[brokenIn]("Broken", tools.ParamOptions[brokenIn]{Enums: map[string][]string{"nope": {"x"}}})
	_, err := tools.DeriveDeclaredSchemas()
	if err == nil || !strings.Contains(err.Error(), `enum for unknown property "nope"`) {
		t.Fatalf("err = %v, want the broken contract's error", err)
	}
}

// sameMap reports whether a and b are the same map value (not equal ones).
func sameMap(a, b map[string]any) bool {
	a["\x00probe"] = true
	defer delete(a, "\x00probe")
	return b["\x00probe"] == true
}
