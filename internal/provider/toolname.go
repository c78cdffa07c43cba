package provider

import (
	"fmt"
	"strconv"
	"strings"
)

// wireSafe reports whether c may appear unescaped in a wire tool name.
func wireSafe(c rune) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// EncodeToolName maps an internal tool name onto the characters providers
// accept, reversibly (CONTRACT.md §10.4): [A-Za-z0-9_] stay, '-' becomes "--",
// anything else becomes "-x" + six upper-case hex digits + "-". An 'x' that
// DecodeToolName would read as the start of a bare escape ("x00002E") is
// escaped itself, so every name decodes back to itself.
func EncodeToolName(name string) string {
	clean := true
	for i, c := range name {
		if !wireSafe(c) || (c == 'x' && bareEscape(name[i:])) {
			clean = false
			break
		}
	}
	if clean {
		return name
	}
	var b strings.Builder
	for i, c := range name {
		switch {
		case c == 'x' && bareEscape(name[i:]):
			fmt.Fprintf(&b, "-x%06X-", c)
		case wireSafe(c):
			b.WriteRune(c)
		case c == '-':
			b.WriteString("--")
		default:
			fmt.Fprintf(&b, "-x%06X-", c)
		}
	}
	return b.String()
}

// bareEscape reports whether s starts with the bare xHHHHHH sequence
// DecodeToolName turns into one character: a code point the encoder
// would have escaped.
func bareEscape(s string) bool {
	if len(s) < 7 || s[0] != 'x' {
		return false
	}
	r, ok := hexRune(s[1:7])
	return ok && !wireSafe(r) && r != '-'
}

// DecodeToolName reverses EncodeToolName. It also accepts a bare xHHHHHH
// sequence for a character the encoder would have escaped.
func DecodeToolName(wire string) string {
	if !strings.ContainsAny(wire, "-x") {
		return wire
	}
	var b strings.Builder
	for i := 0; i < len(wire); {
		switch {
		case strings.HasPrefix(wire[i:], "--"):
			b.WriteByte('-')
			i += 2
		case wire[i] == '-' && i+9 <= len(wire) && wire[i+1] == 'x' && wire[i+8] == '-':
			if r, ok := hexRune(wire[i+2 : i+8]); ok {
				b.WriteRune(r)
				i += 9
				continue
			}
			b.WriteByte(wire[i])
			i++
		case bareEscape(wire[i:]):
			r, _ := hexRune(wire[i+1 : i+7])
			b.WriteRune(r)
			i += 7
		default:
			b.WriteByte(wire[i])
			i++
		}
	}
	return b.String()
}

func hexRune(s string) (rune, bool) {
	for _, c := range s {
		if !((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')) {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 16, 32)
	if err != nil || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, false
	}
	return rune(n), true
}
