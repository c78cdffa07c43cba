package lsp

import (
	"strings"
	"unicode/utf8"
)

// encoding is the unit of a position's character offset the server chose
// (LSP 3.17 positionEncoding): UTF-16 code units unless it said otherwise.
// Columns codewhale shows and takes are 1-based and count characters
// (code points), whatever the server uses.
type encoding int

const (
	utf16 encoding = iota
	utf8Bytes
	utf32
)

func parseEncoding(position, offset string) encoding {
	for _, s := range []string{position, offset} {
		switch s {
		case "utf-8":
			return utf8Bytes
		case "utf-32":
			return utf32
		case "utf-16":
			return utf16
		}
	}
	return utf16
}

// column is the 1-based character column of the server's offset char on
// line. An offset past the end is the column after the last character.
func (e encoding) column(line string, char uint32) int {
	col, units := 1, uint32(0)
	for len(line) > 0 {
		if units >= char {
			return col
		}
		r, size := utf8.DecodeRuneInString(line)
		units += e.width(r, size)
		line = line[size:]
		col++
	}
	return col
}

// offset is the server's offset of the 1-based character column col on
// line (a column past the end is the end of the line).
func (e encoding) offset(line string, col int) uint32 {
	units := uint32(0)
	for len(line) > 0 && col > 1 {
		r, size := utf8.DecodeRuneInString(line)
		units += e.width(r, size)
		line = line[size:]
		col--
	}
	return units
}

// width is how many of the encoding's units the character r, size bytes
// of UTF-8 in the file, takes (an invalid byte counts as one character).
func (e encoding) width(r rune, size int) uint32 {
	switch e {
	case utf8Bytes:
		return uint32(size)
	case utf32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// lineAt is the 0-based line n of text without its terminator ("" past the
// end).
func lineAt(text string, n int) string {
	for ; n > 0; n-- {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return ""
		}
		text = text[i+1:]
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSuffix(text, "\r")
}
