package web

import (
	"encoding/json"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
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
		raw := json.RawMessage(c.in)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call, err := reg.Prepare(ToolName, raw)
				if err != nil {
					b.Fatal(err)
				}
				if p := call.Policy; p.Approval != tools.Auto || !p.ReadOnly {
					b.Fatal(p)
				}
			}
		})
	}
}
