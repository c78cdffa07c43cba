package work

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the work-grounding body (CONTRACT.md §7), counted in Unicode scalars.
const (
	MaxItemLines        = 24
	MaxBodyChars        = 2000
	MaxItemContentChars = 160
)

// RenderWorkState renders the canonical work-grounding body for snap: a
// header, at most MaxItemLines item lines in document order and, when items
// were left out, one omission line. The body never exceeds MaxBodyChars; the
// active item (InProgressID, else the first in-progress item) is selected
// first and always survives. An empty list renders "" so that no block is
// sent at all. Every consumer (parent tail, sub-agent tail, fork state,
// relay) embeds this string byte for byte.
func RenderWorkState(snap Snapshot) string {
	items := snap.Items
	if len(items) == 0 {
		return ""
	}
	header := "To-do (" + strconv.Itoa(snap.CompletionPct) + "% settled)"
	used := len(header) // ASCII
	active := activeIndex(snap)

	// sel holds item indexes in priority order; lines[i] the rendered line of
	// sel[i]. Selection stops at the first line that does not fit.
	sel := make([]int, 0, MaxItemLines)
	lines := make([]string, 0, MaxItemLines)
	costs := make([]int, 0, MaxItemLines)
	for p := 0; p < len(items) && len(sel) < MaxItemLines; p++ {
		idx := priorityAt(p, active)
		line := itemLine(items[idx])
		cost := 1 + utf8.RuneCountInString(line)
		if used+cost > MaxBodyChars {
			break
		}
		used += cost
		sel, lines, costs = append(sel, idx), append(lines, line), append(costs, cost)
	}

	omitted := len(items) - len(sel)
	var tail string
	if omitted > 0 {
		tail = omissionLine(omitted)
		// Make room for the omission line by dropping the lowest-priority
		// selections; the last remaining one (the active item) never goes.
		for used+1+utf8.RuneCountInString(tail) > MaxBodyChars && len(sel) > 1 {
			last := len(sel) - 1
			used -= costs[last]
			sel, lines, costs = sel[:last], lines[:last], costs[:last]
			omitted++
			tail = omissionLine(omitted)
		}
	}
	return assemble(header, sel, lines, tail, len(items))
}

// activeIndex is the document index of the active item, or -1.
func activeIndex(snap Snapshot) int {
	first := -1
	for i, it := range snap.Items {
		if snap.InProgressID != 0 && it.ID == snap.InProgressID {
			return i
		}
		if first < 0 && it.Status == InProgress {
			first = i
		}
	}
	return first
}

// priorityAt maps a priority rank to a document index: the active item
// first, then every other item in document order.
func priorityAt(p, active int) int {
	switch {
	case active < 0:
		return p
	case p == 0:
		return active
	case p <= active:
		return p - 1
	default:
		return p
	}
}

// assemble writes the header, the selected lines in document order and the
// omission line.
func assemble(header string, sel []int, lines []string, tail string, total int) string {
	// Selection order is active-first then ascending, so document order only
	// needs the active line moved to its place.
	order := make([]int, len(sel))
	for i := range order {
		order[i] = i
	}
	if len(sel) > 1 {
		for i := 1; i < len(sel) && sel[order[i]] < sel[order[i-1]]; i++ {
			order[i-1], order[i] = order[i], order[i-1]
		}
	}
	var b strings.Builder
	b.Grow(MaxBodyChars * 2)
	b.WriteString(header)
	for _, i := range order {
		b.WriteByte('\n')
		b.WriteString(lines[i])
	}
	if tail != "" {
		b.WriteByte('\n')
		b.WriteString(tail)
	}
	return b.String()
}

func omissionLine(k int) string {
	return "- … +" + strconv.Itoa(k) + " more To-do items omitted"
}

// Marker returns the checkbox marker of a status.
func Marker(s Status) string {
	switch s {
	case InProgress:
		return "[~]"
	case Completed:
		return "[x]"
	case Cancelled:
		return "[-]"
	default:
		return "[ ]"
	}
}

func itemLine(it Item) string {
	return "- " + Marker(it.Status) + " #" + strconv.Itoa(it.ID) + " " + SanitizeContent(it.Content)
}

const closeTag = "</codewhale:"

// SanitizeContent prepares item text for the body: control characters
// become spaces, every "</codewhale:" (ASCII case-insensitive) becomes
// "<\/codewhale:" so the text can never close the wrapper, the result is
// trimmed, and text over MaxItemContentChars keeps 159 scalars plus "…".
func SanitizeContent(s string) string {
	out := s
	if needsRewrite(s) {
		out = rewrite(s)
	}
	out = strings.TrimSpace(out)
	// Find where the 160th scalar ends; most items are shorter.
	n := 0
	for i := range out {
		if n == MaxItemContentChars-1 && utf8.RuneCountInString(out[i:]) > 1 {
			return out[:i] + "…"
		}
		n++
	}
	return out
}

// needsRewrite reports whether s has a control character or a wrapper
// closing tag. Most item text has neither and is used as is.
func needsRewrite(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // C1 controls
			return true
		case c == '<' && hasCloseTagAt(s, i):
			return true
		}
	}
	return false
}

// rewrite replaces control characters with spaces and neutralises closing
// tags, copying unchanged runs in bulk.
func rewrite(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		if s[i] == '<' && hasCloseTagAt(s, i) {
			b.WriteString(`<\/codewhale:`)
			i += len(closeTag)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsControl(r) {
			b.WriteByte(' ')
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func hasCloseTagAt(s string, i int) bool {
	return len(s)-i >= len(closeTag) && strings.EqualFold(s[i:i+len(closeTag)], closeTag)
}
