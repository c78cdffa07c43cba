package web

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are Web calls as a model sends them: a search with the q
// alias, a batch search with recency, a fetch of a public address (an IP
// literal, so the policy's check needs no DNS) and a wait.
var dispatchInputs = []struct{ name, in string }{
	{"search", `{"action":"search","q":"go context cancel","max_results":3}`},
	{"batch", `{"action":"search","search_query":[{"q":"goldmark"},{"q":"chroma","max_results":2}],"recency":"month","domains":["github.com"]}`},
	{"fetch", `{"action":"fetch","url":"https://93.184.216.34/docs/page.html","format":"text","max_bytes":200000}`},
	{"wait", `{"action":"wait","port":8080,"timeout_ms":5000}`},
}

// BenchmarkDispatch is the engine's path for one Web call up to running
// it: the registry's Prepare and the policy the engine reads.
func BenchmarkDispatch(b *testing.B) {
	reg := tools.NewRegistry()
	reg.Register(New(Options{}))
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, ToolName, c.in, func(p tools.Policy) bool { return p.Approval == tools.Auto && p.ReadOnly })
	}
}
