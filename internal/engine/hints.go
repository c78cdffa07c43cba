package engine

import (
	"github.com/codewhale/codewhale/internal/textdist"
	"github.com/codewhale/codewhale/internal/tools"
)

// suggest returns up to three catalog names that resemble name: either is a
// prefix of or contains the other, or their edit distance is at most 3.
func suggest(name string, names []string) []string { return textdist.Suggest(name, names, 3, 3) }

// Result budgets for the history (CONTRACT.md §9.9): a tool result may take
// 12,000 characters, or 48,000 on routes whose window is at least 500,000
// tokens. Each tool is given the budget (tools.Context.Budget) and sizes its
// own result; budget.Content is the last resort for one that does not.
const (
	smallResultBudget = 12_000
	largeWindow       = 500_000
)

// resultBudget is the per-call result budget for a route's window.
func resultBudget(window int) int {
	if window >= largeWindow {
		return tools.DefaultBudget
	}
	return smallResultBudget
}
