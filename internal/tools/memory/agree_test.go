package memory

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// remember's published schema and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(Options{Root: t.TempDir(), Workspace: t.TempDir()}),
		Samples: map[string]any{"scope": "global", "action": "append"}})
}
