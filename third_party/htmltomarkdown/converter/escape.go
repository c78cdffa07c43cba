package converter

import (
	"unicode/utf8"
	"unsafe"

	"github.com/codewhale/codewhale/third_party/htmltomarkdown/marker"
)

const (
	actionKeep   = iota
	actionEscape = iota
)

// IMPORTANT: Only internally we assume it is only byte
var placeholderByte byte = marker.BytesMarkerEscaping[0]

func (conv *Converter) escapeContent(chars []byte) []byte {
	if conv.escapeMode == EscapeModeDisabled {
		return chars
	}

	f := conv.handlers()
	newChars := make([]byte, 0, len(chars))
	for index := 0; index < len(chars); index++ {
		if chars[index] == '\u0000' {
			// For security reasons, the Unicode character U+0000 must be replaced with the REPLACEMENT CHARACTER (U+FFFD).
			newChars = append(newChars, []byte(string('\ufffd'))...)
			continue
		}

		// codewhale: an ASCII byte is its own rune; only other bytes
		// need the decoder (which, as in the release, runs at every
		// byte of a multi-byte sequence).
		r := rune(chars[index])
		if r >= utf8.RuneSelf {
			r, _ = utf8.DecodeRune(chars[index:])
		}

		isMarkdownChar := f.isEscapedChar(r)
		if isMarkdownChar {
			newChars = append(newChars, placeholderByte, chars[index])
		} else {
			newChars = append(newChars, chars[index])
		}
	}

	return newChars
}

func (conv *Converter) unEscapeContent(chars []byte) []byte {
	if conv.escapeMode == EscapeModeDisabled {
		return chars
	}

	unEscapeHandlers := conv.getUnEscapeHandlers()
	checkElements := func(index int) int {
		for _, handler := range unEscapeHandlers {
			if skip := handler.Value(chars, index); skip != -1 {
				return skip
			}
		}

		return -1
	}

	// codewhale: one pass instead of a first one marking placeholders in a
	// len(chars) array and a second one writing. A placeholder is kept (as
	// a backslash) when a handler claims the bytes after it; those skip-1
	// bytes are then copied without looking for placeholders among them
	// (dropping any, as the release did), exactly as its marking loop
	// jumped over them; every other placeholder is dropped.
	newChars := make([]byte, 0, len(chars))
	for index := 0; index < len(chars); index++ {
		if chars[index] != placeholderByte {
			newChars = append(newChars, chars[index])
			continue
		}
		if index+1 >= len(chars) {
			continue
		}
		skip := checkElements(index + 1)
		if skip == -1 {
			continue
		}
		if skip < 1 {
			// The release's marking loop went back here; no handler
			// does that, but if one did, run that loop.
			return unEscapeTwoPass(chars, checkElements)
		}
		newChars = append(newChars, '\\')
		end := min(index+skip, len(chars))
		for _, c := range chars[index+1 : end] {
			if c != placeholderByte {
				newChars = append(newChars, c)
			}
		}
		index = end - 1
	}
	return newChars
}

// unEscapeTwoPass is the release's unEscapeContent loop.
func unEscapeTwoPass(chars []byte, checkElements func(index int) int) []byte {
	changes := make([]uint8, len(chars))
	for index := 0; index < len(chars); index++ {

		if chars[index] != placeholderByte {
			continue
		}
		if index+1 >= len(chars) {
			break
		}

		skip := checkElements(index + 1)
		if skip == -1 {
			continue
		}
		changes[index] = actionEscape
		index += skip - 1
	}

	newChars := make([]byte, 0, len(chars))
	for index, char := range chars {
		if char != placeholderByte {
			newChars = append(newChars, char)
			continue
		}

		// What to do with this placeholder? Should we escape or not?
		if changes[index] == actionEscape {
			newChars = append(newChars, '\\')
		}
	}
	return newChars
}

// EscapeString is ctx.EscapeContent for a string (codewhale): the release's
// base plugin converted each text node to bytes, escaped them and converted
// the result back, three copies of every text; this makes one. escapeContent
// only reads its input, and its result is not kept anywhere else, so both
// can share memory with the strings.
func EscapeString(ctx Context, s string) string {
	c, ok := ctx.(*converterContext)
	if !ok || s == "" {
		return string(ctx.EscapeContent([]byte(s)))
	}
	if c.conv.escapeMode == EscapeModeDisabled {
		return s
	}
	out := c.conv.escapeContent(unsafe.Slice(unsafe.StringData(s), len(s)))
	return unsafe.String(unsafe.SliceData(out), len(out))
}
