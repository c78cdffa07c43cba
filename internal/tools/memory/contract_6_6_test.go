package memory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/memory"
	"github.com/codewhale/codewhale/internal/toolset"
)

// CONTRACT.md §6.6: remember is registered only when memory is on and not in Plan — the registry a turn really
// builds (internal/toolset) holds it in Act with memory on, and in no other combination; where it is registered it
// is eager, writes_files and Auto.
func TestContract66RegisteredOnlyWithMemoryOnOutsidePlan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode posture.Mode
		on   bool
		want bool
	}{
		{posture.Act, true, true},
		{posture.Act, false, false},
		{posture.Plan, true, false},
		{posture.Plan, false, false},
	} {
		svc := toolset.NewServices(toolset.Options{Workspace: t.TempDir(), Home: t.TempDir(), MemoryEnabled: c.on})
		reg := svc.Registry(engine.TurnEnv{Mode: c.mode, Posture: posture.FullAccess, AllowShell: true})
		if got := slices.Contains(reg.Names(), "remember"); got != c.want {
			t.Errorf("mode %v, memory on=%v: remember registered=%v, want %v", c.mode, c.on, got, c.want)
			continue
		}
		if !c.want {
			continue
		}
		tool, _ := reg.Get("remember")
		call, err := tools.PrepareCall(tool, json.RawMessage(`{"note":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		if tool.DeferLoading() || !tool.ModelVisible() || call.Policy.Approval != tools.Auto ||
			!slices.Equal(tool.Capabilities(), []tools.Capability{tools.CapWritesFiles}) {
			t.Errorf("remember is not eager, Auto and writes_files: deferred=%v visible=%v approval=%v caps=%v",
				tool.DeferLoading(), tool.ModelVisible(), call.Policy.Approval, tool.Capabilities())
		}
	}
}

func rememberIn(t *testing.T, home, in string) (tools.Result, error) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(memory.New(memory.Options{Root: home}))
	return reg.Execute(context.Background(), &tools.Context{Workspace: t.TempDir()}, "remember", json.RawMessage(in))
}

// CONTRACT.md §6.6: scope defaults to global and action to append: a bare note lands in
// <home>/memory/global/MEMORY.md as `- <note>` on its own line, at the line the exact result names, even when the
// file did not end with a newline.
func TestContract66BareNoteAppendsToGlobalMemoryOnItsOwnLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, "memory", "global", "MEMORY.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# Notes\n- kept by hand"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := rememberIn(t, home, `{"note":"Answer in British English"}`)
	if err != nil || res.Content != "remembered in native memory: "+path+":4-4" {
		t.Fatalf("got %q, %v", res.Content, err)
	}
	if res.Metadata["scope"] != "global" || res.Metadata["action"] != "append" {
		t.Errorf("defaults: scope %v action %v, want global append", res.Metadata["scope"], res.Metadata["action"])
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if lines[1] != "- kept by hand" || lines[3] != "- Answer in British English" {
		t.Fatalf("memory file %q: the note is not on its own line 4", data)
	}
}

// CONTRACT.md §6.6: revise and retire need both `replaces` and `evidence` (a blank one counts as missing); a call
// without them is refused as invalid input and changes neither the memory file nor the journal.
func TestContract66ReviseAndRetireNeedReplacesAndEvidence(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"action":"revise","note":"Use tabs","evidence":"user said so"}`,
		`{"action":"revise","note":"Use tabs","replaces":"Use spaces"}`,
		`{"action":"revise","note":"Use tabs","replaces":"Use spaces","evidence":"   "}`,
		`{"action":"revise","note":"Use tabs","replaces":" ","evidence":"user said so"}`,
		`{"action":"retire","evidence":"no longer true"}`,
		`{"action":"retire","replaces":"Use spaces"}`,
		`{"action":"retire","replaces":"Use spaces","evidence":""}`,
	} {
		home := t.TempDir()
		if _, err := rememberIn(t, home, `{"note":"Use spaces"}`); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, "memory", "global", "MEMORY.md")
		before, _ := os.ReadFile(path)
		_, err := rememberIn(t, home, in)
		te := tools.AsError(err)
		if err == nil || te.Kind != tools.KindInvalidInput ||
			!(strings.Contains(te.Msg, "replaces") || strings.Contains(te.Msg, "evidence")) {
			t.Errorf("%s: err = %v, want an invalid-input refusal naming replaces or evidence", in, err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s: the memory file changed: %q", in, after)
		}
		if _, err := os.Stat(filepath.Join(home, "memory", "JOURNAL.md")); err == nil {
			t.Errorf("%s: a refused call wrote the journal", in)
		}
	}
}
