package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// dispatchInputs are File calls as a model sends them: a read with an
// alias, a write (policy decides Suggest from the path), an edit with three
// aliases. Each is dispatched the way the engine does it.
var dispatchInputs = []struct{ name, in string }{
	{"read", `{"action":"read","file_path":"a.txt","limit":20}`},
	{"write", `{"action":"write","path":"b.txt","content":"one\ntwo\n"}`},
	{"edit", `{"action":"edit","file_path":"a.txt","old_string":"line 3","new_string":"line 3"}`},
}

// BenchmarkDispatch is the engine's path for one call up to running it:
// the registry's Prepare (one decode) and the policy the engine reads
// (approval, reason, read-only, parallel, detached). Before typed
// parameters this path parsed the arguments five times (normalise, schema
// validation, approval, read-only, parallel) and Execute a sixth.
func BenchmarkDispatch(b *testing.B) {
	ws := tools.Canonical(b.TempDir())
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(strings.Repeat("line\n", 40)), 0o644); err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry()
	reg.Register(New(Options{Writable: true, Patch: true, Workspace: ws}))
	for _, c := range dispatchInputs {
		paramtest.BenchPrepare(b, reg, c.name, Name, c.in, paramtest.Inline)
	}
	b.Run("read+run", func(b *testing.B) {
		tc := &tools.Context{Workspace: ws, Budget: 1 << 20}
		raw := json.RawMessage(dispatchInputs[0].in)
		b.ReportAllocs()
		for b.Loop() {
			call, err := reg.Prepare(Name, raw)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := call.Run(context.Background(), tc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
