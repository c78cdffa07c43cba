package tui

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// queue is the messages entered while a turn runs, sent one at a time, in
// order, as turns end (CONTRACT.md §14.2), and the one pulled back into the
// composer for editing.
type queue struct {
	items []string
	// pulled is a queued message pulled back for editing ("" = none): a
	// cancelled edit puts it back at the front as it was.
	pulled string
}

func (q *queue) add(text string) { q.items = append(q.items, text) }

func (q *queue) len() int { return len(q.items) }

// next takes the oldest message.
func (q *queue) next() (string, bool) {
	if len(q.items) == 0 {
		return "", false
	}
	text := q.items[0]
	q.items = q.items[1:]
	return text, true
}

// take removes message n (1-based).
func (q *queue) take(n int) (string, bool) {
	if n < 1 || n > len(q.items) {
		return "", false
	}
	text := q.items[n-1]
	q.items = append(q.items[:n-1], q.items[n:]...)
	return text, true
}

// pull takes the newest message back for editing.
func (q *queue) pull() string {
	text, _ := q.take(len(q.items))
	q.pulled = text
	return text
}

// unpull puts the pulled message back at the front.
func (q *queue) unpull() {
	q.items = append([]string{q.pulled}, q.items...)
	q.pulled = ""
}

// clear drops every message and reports how many there were.
func (q *queue) clear() int {
	n := len(q.items)
	q.items, q.pulled = nil, ""
	return n
}

// list is /queue's listing.
func (q *queue) list() string {
	if len(q.items) == 0 {
		return "No queued messages."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Queued messages (%d):", len(q.items))
	for i, text := range q.items {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, termtext.Truncate(termtext.OneLine(text), 100, "…"))
	}
	return b.String()
}
