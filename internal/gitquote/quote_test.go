package gitquote

import "testing"

func TestName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, full, plain string
	}{
		{"a.txt", "a.txt", "a.txt"},
		{"a\nb", `"a\nb"`, `"a\nb"`},
		{`q"\`, `"q\"\\"`, `"q\"\\"`},
		{"tab\tx\x01", `"tab\tx\001"`, `"tab\tx\001"`},
		{"日", `"\346\227\245"`, "日"},
	} {
		if got := Name(tt.in, true, false); got != tt.full {
			t.Errorf("Name(%q, full) = %s, want %s", tt.in, got, tt.full)
		}
		if got := Name(tt.in, false, false); got != tt.plain {
			t.Errorf("Name(%q) = %s, want %s", tt.in, got, tt.plain)
		}
	}
	if got := Name("a b", false, true); got != `"a b"` {
		t.Errorf("quoteSpace: %s", got)
	}
}
