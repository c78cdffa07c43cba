package engine

import (
	"fmt"
	"github.com/codewhale/codewhale/internal/textdist"
	"sort"
	"strings"
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

// Tool output compaction for the history (engine.md §2.9), for the 1M-token
// routes this port targets.
const (
	compactThreshold = 48_000
	compactSnippet   = 4_000
)

// compactForModel replaces an oversized tool output with a head and tail
// snippet and a receipt of what was omitted.
func compactForModel(tool, content string) string {
	r := []rune(content)
	if len(r) <= compactThreshold {
		return content
	}
	head, tail := string(r[:compactSnippet/2]), string(r[len(r)-compactSnippet/2:])
	omitted := len(r) - compactSnippet
	return fmt.Sprintf("[%s output compacted to protect context]\n%s\n…\n%s\n(Original: %d chars, omitted: %d chars.)",
		tool, head, tail, len(r), omitted)
}
