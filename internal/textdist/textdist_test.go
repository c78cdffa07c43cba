package textdist

import (
	"strings"
	"testing"
)

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

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"Bash", "File", "Git", "github", "tool_search", "handle_read"}
	for _, c := range []struct {
		name string
		max  int
		want string
	}{
		{"bash", 3, "Bash"},                // case only: a prefix, rank first
		{"git", 3, "Git,github"},           // prefixes, closest first
		{"search", 3, "tool_search"},       // contained
		{"Fiel", 3, "File,Git"},            // a typo within the distance
		{"Fiel", 1, ""},                    // not within 1
		{"handle", 3, "handle_read"},       // a prefix
		{"zzzzzzzzzz", 3, ""},              // nothing near
		{"Git", 3, "github,File"},          // never itself
		{"tool_searchx", 3, "tool_search"}, // the other way round
		{"xGit", 1, "Git"},                 // contains, ranked over typos
		{"", 3, "Git"},                     // empty: only typos within the distance
		{"handle_read_more_text", 3, "handle_read"},
	} {
		got := strings.Join(Suggest(c.name, names, c.max, 2), ",")
		if got != c.want {
			t.Errorf("Suggest(%q, max %d) = %q, want %q", c.name, c.max, got, c.want)
		}
	}
}
