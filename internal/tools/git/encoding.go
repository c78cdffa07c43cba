package git

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/text/encoding/charmap"
)

// utf8Commit returns c with its message and signatures in UTF-8, as git
// re-encodes a commit with an encoding header for output
// (i18n.logOutputEncoding defaults to UTF-8). The single-byte encodings
// (ISO-8859-*, Windows-125x, KOI8) are converted here; any other needs the
// git binary.
func utf8Commit(c *object.Commit) (*object.Commit, error) {
	name := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(string(c.Encoding)))
	if name == "" || name == "utf8" {
		return c, nil
	}
	cm := singleByte(name)
	if cm == nil {
		return nil, needsGit(fmt.Sprintf("commit %s is encoded in %s; re-encoding it needs the git binary", c.Hash, c.Encoding))
	}
	dec := func(s string) string {
		out, err := cm.NewDecoder().String(s)
		if err != nil {
			return s // git prints the original when iconv fails
		}
		return out
	}
	cp := *c
	cp.Message = dec(c.Message)
	cp.Author.Name, cp.Author.Email = dec(c.Author.Name), dec(c.Author.Email)
	cp.Committer.Name, cp.Committer.Email = dec(c.Committer.Name), dec(c.Committer.Email)
	return &cp, nil
}

// singleByte maps a normalised encoding name (lower case, no separators)
// to its table.
func singleByte(name string) *charmap.Charmap {
	switch name {
	case "latin1", "l1", "iso88591", "cp819":
		return charmap.ISO8859_1
	case "latin2", "iso88592":
		return charmap.ISO8859_2
	case "iso88595":
		return charmap.ISO8859_5
	case "iso88597":
		return charmap.ISO8859_7
	case "latin5", "iso88599":
		return charmap.ISO8859_9
	case "latin9", "iso885915":
		return charmap.ISO8859_15
	case "koi8r":
		return charmap.KOI8R
	case "koi8u":
		return charmap.KOI8U
	}
	for _, w := range []struct {
		n  string
		cm *charmap.Charmap
	}{{"1250", charmap.Windows1250}, {"1251", charmap.Windows1251}, {"1252", charmap.Windows1252},
		{"1253", charmap.Windows1253}, {"1254", charmap.Windows1254}, {"1255", charmap.Windows1255},
		{"1256", charmap.Windows1256}, {"1257", charmap.Windows1257}, {"1258", charmap.Windows1258}} {
		if name == "windows"+w.n || name == "cp"+w.n {
			return w.cm
		}
	}
	return nil
}
