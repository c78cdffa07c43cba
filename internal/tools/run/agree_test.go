package run

import (
	"testing"

	"github.com/codewhale/codewhale/internal/jobs"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// Run's published schema, per-action table and decoder agree.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	m, err := jobs.NewManager(jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	paramtest.Agree(t, paramtest.Case{Tool: New(Options{Jobs: m}), Actions: params.Actions(),
		Samples: map[string]any{"profile": "auto", "level": "quick",
			"commands": []any{map[string]any{"name": "n", "program": "true"}}}})
}
