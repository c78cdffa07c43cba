package textdist

import (
	"sort"
	"strings"
)

// Suggest returns up to n of names that resemble name, ignoring case: one
// that is a prefix of the other first, then one that contains the other,
// then a typo within maxDist edits; ties by distance, then name. name
// itself is never suggested. It is the one "did you mean" rule for tool
// names, slash commands and config keys.
func Suggest(name string, names []string, maxDist, n int) []string {
	type cand struct {
		name       string
		rank, dist int
	}
	ln := strings.ToLower(name)
	var cs []cand
	for _, c := range names {
		l := strings.ToLower(c)
		if c == name {
			continue
		}
		d := Levenshtein(ln, l)
		switch {
		case ln != "" && (strings.HasPrefix(l, ln) || strings.HasPrefix(ln, l)):
			cs = append(cs, cand{c, 0, d})
		case ln != "" && (strings.Contains(l, ln) || strings.Contains(ln, l)):
			cs = append(cs, cand{c, 1, d})
		case d <= maxDist:
			cs = append(cs, cand{c, 2, d})
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
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
