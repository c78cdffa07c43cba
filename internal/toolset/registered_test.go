package toolset_test

import (
	"slices"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools/rlm"
	"github.com/codewhale/codewhale/internal/tools/web"
	"github.com/codewhale/codewhale/internal/toolset"
)

// CONTRACT.md §3.2: each row of the table — what a turn registers under
// which mode, service and switch — holds for the registry a turn really
// builds.
// CONTRACT.md §4.5: Full Access in Plan adds no tool Plan removed.
func TestWhatEachTurnRegisters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		env      engine.TurnEnv
		edit     func(*toolset.Services)
		has, not []string
	}{
		{"Act, shell allowed", engine.TurnEnv{Mode: posture.Act, AllowShell: true}, nil,
			[]string{"File", "Git", "update_plan", "work_update", "todo_write", "Bash", "Run", "apply_patch", "tasks", "task_list",
				"remember", "agent", "handle_read", "github", "read_media", "Web", "rlm"}, nil},
		// rlm's eval runs the model's Python: without shell access it is
		// not there, as Bash is not.
		{"Act, shell not allowed", engine.TurnEnv{Mode: posture.Act}, nil, []string{"Run"}, []string{"Bash", "rlm", "rlm_eval"}},
		{"Full Access, shell not allowed", engine.TurnEnv{Mode: posture.Act, Posture: posture.FullAccess}, nil, []string{"Bash", "Run", "rlm"}, nil},
		{"no job manager", engine.TurnEnv{Mode: posture.Act, AllowShell: true}, func(s *toolset.Services) { s.Jobs = nil },
			[]string{"File"}, []string{"Bash", "Run"}},
		{"patch off", engine.TurnEnv{Mode: posture.Act, AllowShell: true}, func(s *toolset.Services) { s.ApplyPatch = false },
			[]string{"File"}, []string{"apply_patch"}},
		{"no task store", engine.TurnEnv{Mode: posture.Act}, func(s *toolset.Services) { s.Tasks = nil }, nil, []string{"tasks", "task_list"}},
		{"memory off", engine.TurnEnv{Mode: posture.Act}, func(s *toolset.Services) { s.MemoryEnabled = false }, nil, []string{"remember"}},
		{"no web", engine.TurnEnv{Mode: posture.Act}, func(s *toolset.Services) { s.Web = nil }, []string{"github"}, []string{"Web"}},
		{"Plan", engine.TurnEnv{Mode: posture.Plan, AllowShell: true, Posture: posture.FullAccess}, nil,
			[]string{"File", "Git", "update_plan", "work_update", "tasks", "task_list", "agent", "handle_read", "github", "Web", "read_media"},
			[]string{"Bash", "Run", "apply_patch", "remember", "rlm", "task_create"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := services(t, true)
			s.Web, s.RLM = web.New(web.Options{}), rlm.New(rlm.Options{})
			if tc.edit != nil {
				tc.edit(s)
			}
			names := s.Registry(tc.env).Names()
			for _, n := range tc.has {
				if !slices.Contains(names, n) {
					t.Errorf("%s is not registered: %v", n, names)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(names, n) {
					t.Errorf("%s is registered: %v", n, names)
				}
			}
		})
	}
}
