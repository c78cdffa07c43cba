package git

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// crlfAction is git's end-of-line conversion decision for a path
// (convert.c's enum convert_crlf_action), as far as checking a file in
// needs it: the *_INPUT and *_CRLF variants convert alike in that
// direction.
type crlfAction int

const (
	crlfBinary crlfAction = iota // no conversion
	crlfText                     // CRLF → LF always
	crlfAuto                     // CRLF → LF when the file looks like text and the index copy has no CRLF
)

// cleaner computes what git would store for a worktree file — its "clean"
// conversion — so that a stat-dirty file can be compared with the index
// entry as git does. It handles the end-of-line conversions of the text,
// crlf and eol attributes and core.autocrlf; a path that needs ident
// expansion or a working-tree-encoding is refused, since only git computes
// those. Filter drivers are ignored: the binary backend runs git with every
// driver emptied (internal/gitsafe), and this prints what that git prints.
type cleaner struct {
	mu       sync.Mutex // status checks entries in parallel; go-git's object reads and the attribute cache are not shared safely
	rp       *repo
	attrs    *attributes
	autocrlf string // "true", "input" or "false"
}

func newCleaner(rp *repo, idx *gitIndex) *cleaner {
	v, _ := rp.configValue("core", "autocrlf")
	switch v = strings.ToLower(strings.TrimSpace(v)); v {
	case "true", "yes", "on", "1":
		v = "true"
	case "input":
	default:
		v = "false"
	}
	return &cleaner{rp: rp, attrs: newAttributes(rp, idx), autocrlf: v}
}

// clean returns data as git would hash it for path p, whose index blob is
// indexBlob (read only when needed).
func (c *cleaner) clean(p string, data []byte, indexBlob func() []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.attrs.lookup(p, "text", "crlf", "eol", "ident", "working-tree-encoding")
	if at["ident"].set {
		return nil, needsGit(fmt.Sprintf("status of %s needs the git binary: its ident attribute is expanded only by git", p))
	}
	if at["working-tree-encoding"].specified() {
		return nil, needsGit(fmt.Sprintf("status of %s needs the git binary: its working-tree-encoding is converted only by git", p))
	}
	switch c.action(at) {
	case crlfText:
		return crlfToLF(data), nil
	case crlfAuto:
		if bytes.IndexByte(data, '\r') < 0 || convertIsBinary(gatherStats(data)) || hasCRLFText(indexBlob()) {
			return data, nil
		}
		return bytes.ReplaceAll(data, []byte("\r"), nil), nil
	}
	return data, nil
}

// action is git's decision from the attributes and core.autocrlf
// (convert.c's convert_attrs): text, else the legacy crlf attribute; an eol
// attribute implies text; a path that says nothing follows core.autocrlf.
func (c *cleaner) action(at map[string]attrState) crlfAction {
	act, ok := crlfAttr(at["text"])
	if !ok {
		act, ok = crlfAttr(at["crlf"])
	}
	switch e := at["eol"].value; {
	case ok && act == crlfBinary:
		return crlfBinary
	case e == "lf" || e == "crlf":
		if ok && act == crlfAuto {
			return crlfAuto
		}
		return crlfText
	case ok:
		return act
	case c.autocrlf == "false":
		return crlfBinary
	}
	return crlfAuto
}

// crlfAttr reads a text or crlf attribute; ok is false when it says
// nothing (unspecified, or a value git does not know).
func crlfAttr(s attrState) (crlfAction, bool) {
	switch {
	case s.set, s.value == "input":
		return crlfText, true
	case s.unset:
		return crlfBinary, true
	case s.value == "auto":
		return crlfAuto, true
	}
	return crlfBinary, false
}

// crlfToLF drops each CR that precedes a LF.
func crlfToLF(data []byte) []byte {
	if !bytes.Contains(data, []byte("\r\n")) {
		return data
	}
	return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
}

// textStats is convert.c's struct text_stat.
type textStats struct {
	nul, loneCR, loneLF, crlf, printable, nonPrintable int
}

func gatherStats(data []byte) textStats {
	var s textStats
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.loneCR++
			}
		case c == '\n':
			s.loneLF++
		case c == 127:
			s.nonPrintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonPrintable++
			default:
				s.nonPrintable++
			}
		default:
			s.printable++
		}
	}
	if len(data) > 0 && data[len(data)-1] == '\032' {
		s.nonPrintable--
	}
	return s
}

func convertIsBinary(s textStats) bool {
	return s.loneCR > 0 || s.nul > 0 || s.printable>>7 < s.nonPrintable
}

// hasCRLFText is convert.c's has_crlf_in_index test on the index blob: a
// text blob with CRLF line endings is left alone by text=auto.
func hasCRLFText(blob []byte) bool {
	if bytes.IndexByte(blob, '\r') < 0 {
		return false
	}
	s := gatherStats(blob)
	return !convertIsBinary(s) && s.crlf > 0
}

func needsGit(msg string) error { return &failure{needsCLI: true, msg: msg} }
