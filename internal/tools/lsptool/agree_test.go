package lsptool

import (
	"testing"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// The lsp tool's published schema, per-action table and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	paramtest.Agree(t, paramtest.Case{Tool: New(lsp.New(lsp.Options{})), Actions: params.Actions()})
}
