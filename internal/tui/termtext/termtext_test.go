package termtext_test

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// CONTRACT.md §14.1: the sanitiser removes every sequence and stray control byte that could change terminal state.
func TestSanitizeStripsEverythingThatCouldChangeTerminalState(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain text is kept", "hello\tworld\n", "hello\tworld\n"},
		{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
		{"cursor movement and erase", "a\x1b[2J\x1b[10;5Hb\x1b[K", "ab"},
		{"private mode (alt screen)", "x\x1b[?1049hy", "xy"},
		{"OSC title with BEL", "\x1b]0;pwned\x07after", "after"},
		{"OSC 52 clipboard with ST", "\x1b]52;c;ZXZpbA==\x1b\\ok", "ok"},
		{"OSC 8 hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS string", "\x1bPq#0;2;0;0;0\x1b\\z", "z"},
		{"APC string", "\x1b_Gf=100;AAAA\x1b\\z", "z"},
		{"charset designation", "\x1b(0q\x1b(B", "q"},
		{"C1 CSI as UTF-8", "a\u009b31mb", "ab"},
		{"C1 OSC as UTF-8", "a\u009d0;t\u0007b", "ab"},
		{"bell, backspace, NUL, DEL", "a\x07b\x08c\x00d\x7fe", "abcde"},
		{"CRLF becomes LF, lone CR dropped", "one\r\ntwo\rthree", "one\ntwothree"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", "a\uFFFDb"},
		{"CJK and emoji are kept", "日本語 👍🏽", "日本語 👍🏽"},
		{"unterminated CSI at end", "tail\x1b[31", "tail"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := termtext.Sanitize(c.in); got != c.want {
				t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestSanitizeCleanTextDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("clean text with ünïcode and 中文\n", 50)
	if n := testing.AllocsPerRun(100, func() { _ = termtext.Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize allocated %v times on clean text", n)
	}
}

func TestWidthCountsWideCharacters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"日本", 4},
		{"👍", 2},
		{"\x1b[1mbold\x1b[0m", 4},
		{"e\u0301", 1}, // combining accent
	}
	for _, c := range cases {
		if got := termtext.Width(c.in); got != c.want {
			t.Errorf("Width(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestWrapPlainPacksWordsKeepsIndentationAndBreaksLongWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		w    int
		want []string
	}{
		{"fits", "short line", 20, []string{"short line"}},
		{"empty line stays one empty row", "", 10, []string{""}},
		{"greedy packing", "the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"indentation repeats on continuation rows", `    "description": "a long value here"`, 24,
			[]string{`    "description": "a`, `    long value here"`}},
		{"long word broken by character", "abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"wide characters never split a cell", "日本語のテキスト", 5, []string{"日本", "語の", "テキ", "スト"}},
		{"runs of inner spaces are kept", "a    b", 10, []string{"a    b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := termtext.WrapPlain(c.in, c.w)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("WrapPlain(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
			}
			for _, row := range got {
				if termtext.Width(row) > c.w {
					t.Errorf("row %q is wider than %d", row, c.w)
				}
			}
		})
	}
}

func TestTruncateAndFitRespectDisplayWidth(t *testing.T) {
	t.Parallel()
	if got := termtext.Truncate("日本語テキスト", 7, "…"); termtext.Width(got) > 7 || !strings.HasSuffix(got, "…") {
		t.Errorf("Truncate = %q (width %d)", got, termtext.Width(got))
	}
	if got := termtext.Fit("ab", 5); got != "ab   " {
		t.Errorf("Fit = %q", got)
	}
	if got := termtext.ExpandTabs("a\tb\n\tc"); got != "a   b\n    c" {
		t.Errorf("ExpandTabs = %q", got)
	}
	if got := termtext.OneLine("a\n  b\tc"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}
