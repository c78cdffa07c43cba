package tui

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tui/switches"
)

// The mode picker says what each mode does in words the rest of the
// product uses (CONTRACT.md §14.5): Operate hands independent parts to
// sub-agents, as its prompt section tells the model; no unexplained name.
func TestModePickerHintsSayWhatTheModeDoes(t *testing.T) {
	want := map[string]string{"act": "approval", "plan": "Read-only", "operate": "sub-agents"}
	for _, it := range switches.ModeItems() {
		if !strings.Contains(it.Hint, want[it.Value]) || strings.Contains(it.Hint, "Fleet") {
			t.Errorf("%s: hint %q does not say %q", it.Label, it.Hint, want[it.Value])
		}
	}
}
