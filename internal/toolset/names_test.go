package toolset_test

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	auto "github.com/codewhale/codewhale/internal/automation"
	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/projectctx"
	"github.com/codewhale/codewhale/internal/testutil/fstree"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/toolset"
)

// KnownTool's table is exactly the names the registries hold, with every
// optional service present: each Plan name as offered in Plan, each other
// name as Act-only. A tool added to a registry without a row fails here.
func TestKnownToolsAreTheRegistries(t *testing.T) {
	t.Parallel()
	names := map[posture.Mode][]string{}
	for _, mode := range []posture.Mode{posture.Plan, posture.Act} {
		s := services(t, true)
		s.Web, s.RLM = web.New(web.Options{}), rlm.New(rlm.Options{})
		store, err := auto.Open(filepath.Join(t.TempDir(), "automations"))
		if err != nil {
			t.Fatal(err)
		}
		s.Automations = store
		ws := t.TempDir()
		fstree.Write(t, ws, map[string]string{".codewhale/skills/s/SKILL.md": "---\ndescription: a skill\n---\nDo it.\n"})
		ctx := projectctx.Load(projectctx.Options{Workspace: ws})
		s.Skills = func() *projectctx.State { return ctx.State() }
		s.LSP = lsp.New(lsp.Options{Config: lsp.Config{Enabled: true}})
		names[mode] = s.Registry(engine.TurnEnv{Mode: mode, AllowShell: true}).Names()
	}
	all := map[string]bool{}
	for _, n := range names[posture.Act] {
		all[n] = false
	}
	for _, n := range names[posture.Plan] {
		all[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(all)) {
		if ok, plan := toolset.KnownTool(n); !ok || plan != all[n] {
			t.Errorf("%s: KnownTool = %v, in Plan %v; the registries say in Plan %v", n, ok, plan, all[n])
		}
	}
	for n := range toolset.KnownTools() {
		if _, ok := all[n]; !ok {
			t.Errorf("%s is in the table but in no registry", n)
		}
	}
	for _, probe := range []struct {
		rule     string
		ok, plan bool
	}{{"Read", false, false}, {"mcp_github_search", true, true}, {"mcp_", false, false}, {"rlm*", true, false},
		{"todo_*", true, true}, {"*", false, false}, {"nosuch*", false, false}} {
		if ok, plan := toolset.KnownTool(probe.rule); ok != probe.ok || plan != probe.plan {
			t.Errorf("KnownTool(%q) = %v, %v; want %v, %v", probe.rule, ok, plan, probe.ok, probe.plan)
		}
	}
}

// FileReadOnly gives an Act registry the Plan File (no write actions) and
// no apply_patch, and leaves the rest of Act (Bash) in place.
func TestFileReadOnlyKeepsActButNotFileWrites(t *testing.T) {
	t.Parallel()
	s := services(t, false)
	s.FileReadOnly = true
	reg := s.Registry(engine.TurnEnv{Mode: posture.Act, AllowShell: true})
	if reg.Contains("apply_patch") || !reg.Contains("Bash") {
		t.Fatalf("registry %v", reg.Names())
	}
	f, _ := reg.Get("File")
	plan, _ := services(t, false).Registry(engine.TurnEnv{Mode: posture.Plan}).Get("File")
	got, _ := json.Marshal(f.InputSchema())
	want, _ := json.Marshal(plan.InputSchema())
	if string(got) != string(want) {
		t.Errorf("File schema %s, want Plan's %s", got, want)
	}
}
