package tui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

func call(id, name string, args map[string]any) fakemodel.Call {
	raw, _ := json.Marshal(args)
	return fakemodel.Call{ID: id, Name: name, Args: string(raw)}
}

// transcriptText is every transcript row at width w, without styling.
func transcriptText(tr *transcript.Transcript, w int) string {
	tr.Top(w, 10000)
	return termtext.Strip(strings.Join(tr.View(w, 10000), "\n"))
}

// A session drawn live and drawn again from what was stored look the same
// (issue 14): failed calls stay failed, edits keep their diff and stats,
// Bash previews keep their form, and steps without reasoning get no
// reasoning cell.
func TestResumedTranscriptMatchesLive(t *testing.T) {
	srv := fakemodel.New(t,
		fakemodel.Tools(call("b1", "Bash", map[string]any{"command": "echo out; echo err >&2; exit 3"}),
			call("w1", "File", map[string]any{"action": "write", "path": "a.txt", "content": "one\ntwo\n"})),
		fakemodel.Tools(call("e1", "File", map[string]any{"action": "edit", "path": "a.txt", "search": "two", "replace": "three"}),
			call("g1", "Git", map[string]any{"action": "status"}),
			call("b2", "Bash", map[string]any{"command": "seq 1 20"})),
		fakemodel.Text("Done: the edit is in."))
	f := newFlow(t, srv, func(o *engine.Options) { o.Posture = posture.FullAccess })
	if err := os.WriteFile(filepath.Join(f.ws, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.typeLine("do the work")
	f.waitFor("● Done: the edit is in.", "✓ done")
	live := f.final()
	liveText := transcriptText(live.tr, 100)
	for _, want := range []string{"✕ Bash echo out; echo err >&2; exit 3", "✓ File edit a.txt", "a.txt  +1 −1", "+three",
		"✕ Git status", "✓ Bash seq 1 20"} {
		if !strings.Contains(liveText, want) {
			t.Fatalf("live transcript lacks %q:\n%s", want, liveText)
		}
	}
	// The session file holds the messages as JSON; go through it the same way.
	raw, err := json.Marshal(f.eng.Snapshot().Messages)
	if err != nil {
		t.Fatal(err)
	}
	var stored []provider.Message
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	d := newDirect(t, 100, 30)
	rebuild(d.m.tr, stored)
	if got := transcriptText(d.m.tr, 100); got != liveText {
		t.Errorf("resumed transcript differs from live\n--- live\n%s\n--- resumed\n%s", liveText, got)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git missing: the Git status row failed for that reason instead")
	}
}

// Stored reasoning comes back as a reasoning cell without a made-up
// duration; the placeholder the engine stores for tool steps without
// reasoning comes back as nothing.
func TestResumedReasoningCells(t *testing.T) {
	t.Parallel()
	d := newDirect(t, 80, 20)
	rebuild(d.m.tr, []provider.Message{
		provider.UserText("go"),
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.ThinkingBlock(provider.ReasoningOmitted),
			provider.ToolUseBlock("c1", "File", json.RawMessage(`{"action":"read","path":"x"}`))}},
		{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock("c1", "x", false)}},
		{Role: provider.RoleAssistant, Content: []provider.Block{provider.ThinkingBlock("think"), provider.TextBlock("ok")}},
	})
	got := transcriptText(d.m.tr, 80)
	if strings.Count(got, "reasoning done") != 1 || strings.Contains(got, "0s") {
		t.Errorf("reasoning cells:\n%s", got)
	}
}
