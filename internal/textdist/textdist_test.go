package textdist

import "testing"

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"File", "Fil", 1}, {"modle", "model", 2}, {"kitten", "sitting", 3}, {"日本", "日本語", 1}, {"abc", "", 3}} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
