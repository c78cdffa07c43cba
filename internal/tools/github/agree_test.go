package github

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// github's published schema, per-action table and decoder agree, in Act and
// in Plan (read actions only).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	samples := map[string]any{"reason": "wont_do", "acceptance_criteria": []any{map[string]any{"criterion": "c", "met": true}}}
	for _, readOnly := range []bool{false, true} {
		paramtest.Agree(t, paramtest.Case{Tool: New(Options{ReadOnly: readOnly, GH: "/nonexistent/gh"}),
			Actions: params.Actions(), Samples: samples})
	}
}
