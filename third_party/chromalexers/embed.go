// Package chromalexers is chroma's lexer definitions for the languages
// models write most, resolved by the caller on first use: chroma's own
// lexers package registers all of its ~280 lexers in init, 12-15 ms at
// every start of any program that links it (see README.md).
package chromalexers

import (
	"embed"
	"io/fs"
)

//go:embed embedded/*.xml
var embedded embed.FS

// FS holds the XML lexer definitions, as embedded/<name>.xml.
func FS() fs.FS { return embedded }
