package engine

import (
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/textdist"
	"github.com/codewhale/codewhale/internal/tools"
)

// suggest returns up to three catalog names that resemble name: either is a
// prefix of or contains the other, or their edit distance is at most 3.
// Ranked prefix, then contains, then typo; ties by distance, then name.
func suggest(name string, names []string) []string {
	type cand struct {
		name       string
		rank, dist int
	}
	ln := strings.ToLower(name)
	var cs []cand
	for _, n := range names {
		l := strings.ToLower(n)
		if l == ln && n == name {
			continue
		}
		d := textdist.Levenshtein(ln, l)
		switch {
		case strings.HasPrefix(l, ln) || strings.HasPrefix(ln, l):
			cs = append(cs, cand{n, 0, d})
		case strings.Contains(l, ln) || strings.Contains(ln, l):
			cs = append(cs, cand{n, 1, d})
		case d <= 3:
			cs = append(cs, cand{n, 2, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].rank != cs[j].rank {
			return cs[i].rank < cs[j].rank
		}
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// Result budgets for the history (CONTRACT.md §9.9): a tool result may take
// 12,000 characters, or 48,000 on routes whose window is at least 500,000
// tokens. Each tool is given the budget (tools.Context.Budget) and sizes its
// own result; fit.Content is the last resort for one that does not.
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
