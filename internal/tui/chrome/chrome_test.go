package chrome_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tui/chrome"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/usage"
)

// The header at every width a terminal gives (golden): the meter goes
// first, then the provider, the "(unenforced)" note and the scope; the
// mode and permission chips always show whole, and no row is wider than
// the terminal.
func TestHeaderAtEveryWidth(t *testing.T) {
	t.Parallel()
	used := &usage.Meter{Window: 1_000_000, Requests: 1, LastInput: 41_200}
	headers := map[string]chrome.Header{
		"act": {Provider: "deepseek", Model: "deepseek-v4-pro", HasKey: true, Mode: posture.Act, Posture: posture.Ask,
			Effort: "auto", Scope: "files: workspace (unenforced)", Meter: used},
		"plan": {Provider: "openrouter", Model: "", HasKey: false, Mode: posture.Plan, Posture: posture.FullAccess,
			Effort: "high", Scope: "files: read-only (enforced)"},
		"assumed": {Provider: "ollama", Model: "qwen3:32b", HasKey: true, Mode: posture.Operate, Posture: posture.AutoReview,
			Effort: "max", Scope: "files: full disk", Meter: &usage.Meter{Table: &emptyTable, Requests: 2, LastInput: 9_000}},
	}
	var b strings.Builder
	for _, name := range []string{"act", "plan", "assumed"} {
		h := headers[name]
		for _, w := range []int{24, 40, 59, 60, 80, 109, 110, 140} {
			rows := h.Rows(theme.Plain(), w, 2)
			for _, r := range rows {
				if termtext.Width(r) > w {
					t.Errorf("%s at %d: a row of %d columns: %q", name, w, termtext.Width(r), r)
				}
			}
			if w >= 40 && !strings.Contains(rows[0], " · "+h.Mode.String()+" · ") {
				t.Errorf("%s at %d: the mode chip is cut: %q", name, w, rows[0])
			}
			if w >= 60 && !strings.Contains(rows[0], chrome.PermissionChip(h.Mode, h.Posture)) {
				t.Errorf("%s at %d: the permission chip is cut: %q", name, w, rows[0])
			}
			fmt.Fprintf(&b, "%s %d\n%s\n", name, w, strings.Join(rows, "\n"))
		}
	}
	golden.RequireEqual(t, []byte(b.String()))
}

// emptyTable knows no model: a local server's unknown window is assumed.
var emptyTable = provider.ModelTable{}

// The phase strip's states in their order of precedence (golden).
func TestPhaseStripStates(t *testing.T) {
	t.Parallel()
	states := []struct {
		name string
		a    chrome.Activity
	}{
		{"idle", chrome.Activity{}},
		{"idle with usage", chrome.Activity{Usage: "42.0k tok · $0.01 · cache 75%"}},
		{"working", chrome.Activity{Working: true, Busy: true, Spinner: "⠋", Label: "working…", Elapsed: 3200 * time.Millisecond}},
		{"three calls", chrome.Activity{Working: true, Busy: true, Spinner: "⠋", Label: "running tools…", Running: 3}},
		{"waiting beats working", chrome.Activity{Waiting: true, Working: true, Busy: true, Label: "working…"}},
		{"cancelling", chrome.Activity{Busy: true, Drafting: true}},
		{"done", chrome.Activity{Done: true, Drafting: true}},
		{"failed", chrome.Activity{Failed: true}},
		{"selection mode", chrome.Activity{Selecting: true, Drafting: true}},
		{"drafting", chrome.Activity{Drafting: true}},
	}
	var b strings.Builder
	for _, s := range states {
		for _, w := range []int{30, 80} {
			row := s.a.Strip(theme.Plain(), w)
			if termtext.Width(row) > w {
				t.Errorf("%s at %d: %d columns: %q", s.name, w, termtext.Width(row), row)
			}
			fmt.Fprintf(&b, "%-22s %d |%s|\n", s.name, w, row)
		}
	}
	golden.RequireEqual(t, []byte(b.String()))
}

func TestQueuedPreviewAndEmptyState(t *testing.T) {
	t.Parallel()
	th := theme.Plain()
	if rows := chrome.Queued(th, 80, 2, nil); rows != nil {
		t.Fatalf("no queue, rows %q", rows)
	}
	one := chrome.Queued(th, 80, 2, []string{"fix the\nbuild"})
	if len(one) != 2 || one[0] != "Queued #1: fix the build" || !strings.Contains(one[1], "/queue drop 1") {
		t.Fatalf("one queued: %q", one)
	}
	two := chrome.Queued(th, 30, 1, []string{"first message that is long", "second"})
	if len(two) != 1 || !strings.HasPrefix(two[0], "Queued 2 · next: first") || termtext.Width(two[0]) > 30 {
		t.Fatalf("two queued in one row of 30: %q", two)
	}
	rows := chrome.Empty(th, 80, 10, "1.2.3", "/src/app")
	if len(rows) != 10 || !strings.Contains(rows[4], "codewhale 1.2.3") || !strings.Contains(rows[5], "/src/app · /help for commands") {
		t.Fatalf("empty state: %q", rows)
	}
	if got := chrome.StatusRow(th, 10, "a long status text", theme.Error); got != "a long st…" {
		t.Fatalf("status row cut: %q", got)
	}
}
