package engine

import (
	"encoding/json"
	"testing"

	"github.com/codewhale/codewhale/internal/provider"
)

func schema(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The vectors of CONTRACT.md §11.3, verified there with independent Python and
// Go implementations.
func TestDigestVectors(t *testing.T) {
	t.Parallel()
	file := provider.Tool{Name: "File", Description: "Read and edit workspace files.",
		InputSchema: schema(t, `{"type":"object","properties":{"path":{"type":"string"},"action":{"type":"string","enum":["read","list"]}},"required":["action"]}`)}
	search := provider.Tool{Name: "tool_search", Description: "Search deferred tool definitions and return matching tool references.",
		InputSchema: schema(t, `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
	cases := []struct {
		name  string
		tools []provider.Tool
		want  string
	}{
		{"empty", []provider.Tool{}, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"read_file", []provider.Tool{{Name: "read_file", Description: "Read a file", InputSchema: schema(t, `{"type":"object"}`)}},
			"41899fa6cb6d0186ddae228d57b88a76cc124df22540dcb62ed0056d28e56216"},
		{"File", []provider.Tool{file}, "6f5f03bf2fb477a09a17c1ac8c097718d9d18b15fb0aef9d0652ccf2f8ab0dc4"},
		{"File+tool_search", []provider.Tool{file, search}, "cfd47edcc2f50302c961623044a70c65fc38c9776550acbd3ee30b5d2496b4a8"},
	}
	for _, c := range cases {
		got, ok := ActiveToolCatalogSHA256(c.tools)
		if !ok || got != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.name, got, ok, c.want)
		}
	}
	if _, ok := ActiveToolCatalogSHA256(nil); ok {
		t.Error("absent tools must have no digest")
	}
	// Transport fields are not hashed; order is.
	withTransport := file
	withTransport.Strict = provider.Bool(true)
	withTransport.DeferLoading = provider.Bool(true)
	withTransport.AllowedCallers = []string{"direct"}
	if got, _ := ActiveToolCatalogSHA256([]provider.Tool{withTransport}); got != cases[2].want {
		t.Error("transport fields changed the digest")
	}
	if got, _ := ActiveToolCatalogSHA256([]provider.Tool{search, file}); got == cases[3].want {
		t.Error("reordering did not change the digest")
	}
}
