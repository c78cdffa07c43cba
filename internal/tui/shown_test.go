package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/codewhale/codewhale/internal/testutil/fakeclock"
)

// The host's Shown runs once, after the first size (the first frame, which
// draws the start-up notices), never before and never twice: the TUI
// holds the background runs its notices list until they are on screen.
func TestShownRunsOnceAfterTheFirstFrame(t *testing.T) {
	calls := 0
	o := baseOptions(newFakeEngine(), fakeclock.At(t0))
	o.Notices = []string{"Starting 1 background run(s) now, with no one asked:"}
	o.Shown = func() { calls++ }
	m := New(o)
	if cmd := m.Init(); cmd == nil || calls != 0 {
		t.Fatalf("Shown ran before the first frame (calls %d)", calls)
	}
	cmd := m.firstFrameShownAfter(tea.WindowSizeMsg{Width: 80, Height: 24})
	if cmd == nil {
		t.Fatal("the first size scheduled no Shown")
	}
	if !strings.Contains(m.View(), "Starting 1 background run(s) now") {
		t.Fatalf("the first frame lacks the notice:\n%s", m.View())
	}
	if calls != 0 {
		t.Fatal("Shown ran before its command")
	}
	cmd()
	if calls != 1 {
		t.Fatalf("Shown ran %d times, want 1", calls)
	}
	if again := m.firstFrameShownAfter(tea.WindowSizeMsg{Width: 100, Height: 30}); again != nil {
		t.Fatal("a later resize scheduled Shown again")
	}
}

// firstFrameShownAfter feeds a size and returns the command it scheduled.
func (m *Model) firstFrameShownAfter(size tea.WindowSizeMsg) tea.Cmd {
	_, cmd := m.Update(size)
	return cmd
}
