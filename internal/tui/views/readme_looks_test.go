package views_test

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/readme"
	"github.com/codewhale/codewhale/internal/tui/theme"
	"github.com/codewhale/codewhale/internal/tui/views"
)

// readmeBlocks are the fenced blocks of README.md's "## <title>" section.
func readmeBlocks(t *testing.T, title string) []string {
	t.Helper()
	return readme.Blocks(readme.Section(t, title))
}

// README.md "What it looks like": the two approval cards at 72 columns are what the card renders, byte for byte — a
// focused one for a three-line script, and an unfocused one (waiting for Tab) for a task asking for authority.
func TestREADMEApprovalCardsAreRendered(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(t, "What it looks like")
	if len(blocks) != 3 {
		t.Fatalf("README.md's section has %d blocks, want 3 (a turn, the cards, no key)", len(blocks))
	}
	cards := strings.SplitAfter(strings.TrimSuffix(blocks[1], "\n"), "┘\n")
	if len(cards) != 2 {
		t.Fatalf("README.md shows %d cards, want 2:\n%s", len(cards), blocks[1])
	}
	script := views.NewApproval(theme.Plain(), request("Bash", "Bash · echo ok …", map[string]any{"command": "echo ok\ntouch X\nrm -rf ./out"}), true)
	task := views.NewApproval(theme.Plain(), request("tasks", "tasks · create · write docs", map[string]any{"action": "create",
		"prompt": "write the docs\nthen push them", "auto_approve": true, "trust_mode": true, "allow_shell": true,
		"model": "deepseek-v4-flash", "mode": "operate"}), false)
	for i, a := range []*views.Approval{script, task} {
		if got, want := a.View(72, 40), strings.TrimSuffix(cards[i], "\n"); got != want {
			t.Errorf("README.md card %d differs from the rendered card\nREADME:\n%s\nrendered:\n%s", i+1, want, got)
		}
	}
}
