package web

import (
	"strings"
	"testing"
)

// firstRunes gives what converting the whole text to runes and cutting
// gives, for valid text, multi-byte runes at the cut and invalid bytes
// before and after it.
func TestFirstRunesMatchesRuneConversion(t *testing.T) {
	t.Parallel()
	p, err := convertHTML(bigPage(t), "text/html", "https://example.com/", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	page := p.content
	for _, s := range []string{"", "abc", "日本語テキスト", "a\xffb\xfe\xfdc", "é\xe6\x97日", strings.Repeat("€x", 50), page} {
		for n := 0; n <= 40; n++ {
			want := string([]rune(s)[:min(n, len([]rune(s)))])
			if got := firstRunes(s, n); got != want {
				t.Errorf("firstRunes(%.20q, %d) = %q, want %q", s, n, got, want)
			}
		}
		if n := 20_000; len([]rune(s)) > n {
			if got, want := firstRunes(s, n), string([]rune(s)[:n]); got != want {
				t.Errorf("the page's first %d runes differ", n)
			}
		}
	}
}
