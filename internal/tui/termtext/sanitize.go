// Package termtext holds the terminal text primitives the UI builds on:
// sanitising untrusted text so it can never change terminal state, display
// widths that count CJK and emoji as two cells, truncation and wrapping.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes model, tool and provider text safe to draw (CONTRACT.md §14.1):
// it removes CSI, OSC, DCS, SOS, PM and APC escape sequences, other ESC
// sequences, C1 controls and every C0 control byte except newline and tab.
// A CR LF pair becomes LF; a lone CR (progress-bar redraws) is dropped.
// Invalid UTF-8 becomes U+FFFD. Text that needs no change is returned as is,
// without allocating.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b:
			i = skipEscape(s, i+1)
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// clean reports whether s has nothing Sanitize would change.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // C1 as UTF-8
			return false
		case c >= 0x80:
			// Validate multi-byte runes only when present.
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size - 1
		}
	}
	return true
}

// skipEscape returns the index after the escape sequence whose ESC byte
// ended just before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// Intermediate bytes, then one final byte (e.g. ESC ( B, ESC 7).
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		i++
		if c >= 0x40 && c <= 0x7e {
			return i
		}
		if c < 0x20 || c > 0x7e { // malformed: stop at the offending byte
			return i - 1
		}
	}
	return i
}

// skipString skips a control string up to BEL, ESC \ or C1 ST.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0x1b:
			return i // an unterminated string ends at the next escape
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
