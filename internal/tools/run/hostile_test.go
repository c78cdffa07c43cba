package run

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/hostilerepo"
	"github.com/codewhale/codewhale/internal/tools"
)

// Run's git gate (git diff --check) runs under gitsafe's configuration: a
// repository's fsmonitor, filter and diff drivers, pager and hooks never
// run through it.
func TestGitGateRunsNothingTheRepositoryPlants(t *testing.T) {
	t.Parallel()
	r := hostilerepo.New(t)
	r.ProveHostile(t)
	f := newFixture(t, Options{}, nil)
	f.tc = &tools.Context{Workspace: tools.Canonical(r.Dir)}
	var env envelope
	f.decode(`{"action":"verifiers","profile":"auto"}`, &env)
	found := false
	for _, g := range env.Gates {
		if g.Name == "git-whitespace" {
			found = true
			if g.Command != "git diff --check" || g.Status != "passed" {
				t.Errorf("git gate: command %q status %s (%v)", g.Command, g.Status, g.SkippedReason)
			}
			if strings.Contains(g.Stderr, "filter") {
				t.Errorf("git gate failed on the neutralised filter: %s", g.Stderr)
			}
		}
	}
	if !found {
		t.Fatalf("no git gate detected: %+v", env.Gates)
	}
	r.AssertNothingRan(t, "Run verifiers")
}
