package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tools/tasks"
)

// A queued task runs headless with its creator's authority and no more: a
// task an Ask session created (auto_approve dropped at create) has its Bash
// calls refused, and every call is in its tool_calls; one created under
// exec --auto runs them; a record from before postures were recorded gets
// the least authority whatever its flags say.
func TestTaskRunsWithItsCreatorsAuthority(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEWHALE_HOME", filepath.Join(home, ".codewhale"))
	t.Setenv("CODEWHALE_TASKS_DIR", filepath.Join(home, "tasks"))
	t.Setenv("HOME", home)
	for _, tt := range []struct {
		name    string
		posture string
		auto    bool
		runs    bool
	}{
		{"ask creator", "suggest", false, false},
		{"exec --auto creator", "suggest", true, true},
		{"auto-review creator with auto", "auto", true, false},
		{"legacy record", "", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			marker := filepath.Join(ws, "ran")
			srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "b1", Name: "Bash",
				Args: `{"command":"touch ` + marker + `"}`}), fakemodel.Text("done"))
			getenv := func(k string) string {
				if k == "CODEWHALE_BASE_URL" {
					return srv.URL
				}
				return os.Getenv(k)
			}
			cfg, err := config.Load(config.Flags{Workspace: ws}, getenv)
			if err != nil {
				t.Fatal(err)
			}
			a, err := New(cfg, Options{Version: "test", NoMCP: true, NoJournal: true})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			rec, err := a.Tasks.Create(tasks.NewTask{Prompt: "make it", Mode: "agent", Workspace: ws, AllowShell: true,
				AutoApprove: tt.auto, Posture: tt.posture})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.runTask(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(marker)
			if ran := statErr == nil; ran != tt.runs {
				t.Errorf("Bash ran = %v, want %v", ran, tt.runs)
			}
			got, err := a.Tasks.Get(rec.ID)
			if err != nil || len(got.ToolCalls) != 1 {
				t.Fatalf("tool_calls %v, %v", got.ToolCalls, err)
			}
			var call tasks.ToolCallRecord
			_ = json.Unmarshal(got.ToolCalls[0], &call)
			if call.Name != "Bash" || call.Refused == tt.runs || !tt.runs && !strings.Contains(call.Summary, "approval") &&
				!strings.Contains(call.Summary, "Auto-Review held") {
				t.Errorf("recorded call %+v", call)
			}
		})
	}
}
