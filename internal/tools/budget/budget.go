// Package budget sizes tool results to the character budget the engine gives
// each call (tools.Context.Budget). A tool sizes its own result with Prefix
// (keep as many items as fit, and say how to get the rest) and Line (cut one
// long line with a marker); Content is the last-resort cut the engine applies
// to a result that is still too long: structural for JSON, so the model
// always receives valid JSON with a receipt of what was left out, and head
// plus tail with a marker for text.
//
// Budgets count characters (Unicode code points), the unit the engine
// measures results in.
package budget

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Runes is the length of s in the budget's unit.
func Runes(s string) int { return utf8.RuneCountInString(s) }

// Prefix finds the largest k in [0, n] for which render(k) fits budget and
// returns render(k) and k. render must grow with k (a rendering of the first
// k items). When even render(0) is too long it is returned with k = 0: the
// fixed part of a result is the caller's to bound. The work is a few
// renderings of at most about twice the budget, whatever n is: the search
// gallops up from a small k before it bisects.
func Prefix(n, budget int, render func(k int) string) (string, int) {
	if s := render(n); Runes(s) <= budget {
		return s, n
	}
	lo, hi := 0, n // render(hi) does not fit; render(lo) does, unless lo is 0
	for k := 16; k < hi; k *= 2 {
		if Runes(render(k)) > budget {
			hi = k
			break
		}
		lo = k
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if Runes(render(mid)) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return render(lo), lo
}

// Line returns s cut to at most limit characters, the cut marked with how
// long the line really is. Used for lines of files and command output that
// a result quotes.
func Line(s string, limit int) string {
	if len(s) <= limit || Runes(s) <= limit {
		return s
	}
	return cutRunes(s, limit) + "… [line truncated: " + strconv.Itoa(Runes(s)) + " chars]"
}

// Text returns s cut to budget characters: a head and a tail, each ending
// on a line break when one is near, joined by a marker saying how much was
// left out. s is returned unchanged when it fits.
func Text(s string, budget int) string {
	out, _ := text(s, budget)
	return out
}

// text is Text that also returns how many characters of s it left out.
func text(s string, budget int) (string, int) {
	total := Runes(s)
	if total <= budget {
		return s, 0
	}
	marker := func(omitted int) string {
		return "\n…[" + strconv.Itoa(omitted) + " of " + strconv.Itoa(total) + " characters omitted]…\n"
	}
	room := budget - Runes(marker(total))
	if room <= 0 {
		return cutRunes(s, max(budget, 0)), total - max(budget, 0)
	}
	r := []rune(s)
	head := snapToLine(r[:room/2], true)
	tail := snapToLine(r[len(r)-(room-len(head)):], false)
	omitted := total - len(head) - len(tail)
	return string(head) + marker(omitted) + string(tail), omitted
}

// snapToLine trims a head to end after its last line break, or a tail to
// start after its first, when that keeps at least three quarters of it.
func snapToLine(r []rune, head bool) []rune {
	if head {
		for i := len(r) - 1; i >= len(r)*3/4; i-- {
			if r[i] == '\n' {
				return r[:i+1]
			}
		}
		return r
	}
	for i := 0; i < len(r)/4; i++ {
		if r[i] == '\n' {
			return r[i+1:]
		}
	}
	return r
}

// cutRunes returns the first n characters of s.
func cutRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// Content is the engine's last-resort cut of a result for tool (CONTRACT.md
// §9.9): content that fits is returned unchanged; JSON is cut structurally
// and stays valid JSON with a "truncation" receipt; anything else keeps a
// head and a tail between the contract's compaction note and receipt.
func Content(tool, content string, budget int) string {
	total := Runes(content)
	if total <= budget {
		return content
	}
	note := tool + " output exceeded the " + strconv.Itoa(budget) + "-character result budget and was cut"
	if out, ok := JSON(content, budget, note); ok {
		return out
	}
	head := "[" + tool + " output compacted to protect context]\n"
	foot := func(omitted int) string {
		return "\n(Original: " + strconv.Itoa(total) + " chars, omitted: " + strconv.Itoa(omitted) + " chars.)"
	}
	body, omitted := text(content, budget-Runes(head)-Runes(foot(total)))
	return head + body + foot(omitted)
}

// isJSON reports whether s looks like a JSON object or array (a bare
// string or number is left to the text cut).
func isJSON(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// Own is a tool sizing its own result to budget: content that fits is
// unchanged; JSON is cut structurally and stays valid, its "truncation"
// receipt noting how (the call that gets the rest); text keeps a head and a
// tail with a marker, then how. A tool calls it with its own how, so the
// engine's last-resort cut (Content) is never reached.
func Own(content string, budget int, how string) string {
	if Runes(content) <= budget {
		return content
	}
	note := "cut to fit the " + strconv.Itoa(budget) + "-character result budget; " + how
	if out, ok := JSON(content, budget, note); ok {
		return out
	}
	foot := "\n[" + note + "]"
	return Text(content, budget-Runes(foot)) + foot
}
