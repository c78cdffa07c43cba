package mdterm

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// Punctuation right after an inline span is part of the span's word: at a
// width where the span ends the line, the mark wraps with it instead of
// starting the next line alone.
func TestPunctuationStaysWithInlineSpan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		width     int
		want      []string
	}{
		{"code then period", "see the `foo`.", 13, []string{"see the", "`foo`."}},
		{"bold then comma", "one two **bold**, three", 12, []string{"one two", "bold, three"}},
		{"emphasis then colon", "read all *this*: now", 13, []string{"read all", "this: now"}},
		{"link then period", "see [docs](https://go.dev).", 24, []string{"see docs", "(https://go.dev)."}},
		{"underscores split by the parser", "and snake_case_name.", 19, []string{"and", "snake_case_name."}},
		{"glued word longer than a line", "`abcdefghij`kl", 8, []string{"`abcdefg", "hij`kl"}},
		{"fits on one line", "see `foo`.", 10, []string{"see `foo`."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := New(termenv.Ascii, false, true).Render(c.src, c.width)
			for i := range got {
				got[i] = stripANSI(got[i])
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("width %d:\n got %q\nwant %q", c.width, got, c.want)
			}
		})
	}
}
