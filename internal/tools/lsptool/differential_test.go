package lsptool

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The tool's definition and references agree with what the gopls command
// line prints for the same positions of a real package (container/list),
// every thirtieth identifier of list.go.
func TestDefinitionAndReferencesAgreeWithTheGoplsCLI(t *testing.T) {
	t.Parallel()
	e := newGoplsEnv(t)
	list := filepath.Join(e.ws, "list.go")
	compared := 0
	for _, id := range idents(t, list) {
		line, byteCol, name := id[0].(int), id[1].(int), id[2].(string)
		col := charCol(t, list, line, byteCol)
		at := fmt.Sprintf("list.go:%d:%d", line, byteCol)
		for _, action := range []string{"definition", "references"} {
			out, ok := e.cli(t, action, at)
			var want []place
			if ok {
				want = cliPlaces(t, out, action == "definition")
			}
			in := map[string]any{"action": action, "path": "list.go", "line": line, "column": col, "max_results": 200}
			if action == "references" {
				in["include_declaration"] = false // a field definition does not take (CONTRACT.md §2.4)
			}
			res := e.call(t, in)
			var got []place
			if res.Success && !strings.Contains(res.Content, "found no") {
				got = e.toolPlaces(res)
			}
			sortPlaces(want)
			sortPlaces(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s of %s at %s:\n gopls CLI: %v\n lsp tool:  %v\n tool said: %s", action, name, at, want, got, res.Content)
			}
			if len(want) > 0 {
				compared++
			}
		}
	}
	if compared < 8 {
		t.Fatalf("only %d positions had an answer to compare", compared)
	}
}
