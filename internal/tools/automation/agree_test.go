package automation

import (
	"testing"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// automation's published schema, per-action table and decoder agree, in
// Act and in Plan (read actions only).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	samples := map[string]any{"limit": 5, "mode": "act", "status": "paused"}
	for _, readOnly := range []bool{false, true} {
		store, err := auto.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		paramtest.Agree(t, paramtest.Case{Tool: New(Options{Store: store, ReadOnly: readOnly}),
			Actions: params.Actions(), Samples: samples})
	}
}
