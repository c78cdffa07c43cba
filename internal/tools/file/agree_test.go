package file

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// File's published schema, per-action table and decoder agree in every
// instance shape (Plan, Act, Act with patch), and apply_patch decodes as
// File patch.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	entries := []any{map[string]any{"path": "a", "content": "b"}}
	samples := map[string]any{"pages": "1", "patch.replace": entries, "patch.changes": entries}
	for _, o := range []Options{{}, {Writable: true}, writable} {
		paramtest.Agree(t, paramtest.Case{Tool: New(o), Actions: params.Actions(), Samples: samples})
	}
}
