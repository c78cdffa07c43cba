package git

import (
	"testing"

	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// Git's published schema, per-action table and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(), Actions: params.Actions()})
}
