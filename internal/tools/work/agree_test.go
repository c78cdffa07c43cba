package work

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// work_update's published schema and decoder agree (the canonical input,
// statuses folded, validates against the schema).
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(NewLedger()),
		Samples: map[string]any{"todos": []any{map[string]any{"content": "x", "status": "done"}}}})
}
