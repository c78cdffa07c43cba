package git

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// blameOutput renders blamed lines in git blame's formats.
type blameOutput struct {
	rp    *repo
	final *blameOrigin
	lines []*blameLine
}

// porcelain is --line-porcelain: every line carries its commit's details.
func (o blameOutput) porcelain() string {
	var b strings.Builder
	for _, g := range groups(o.lines) {
		for i, l := range g {
			fmt.Fprintf(&b, "%s %d %d", l.suspect.commit.Hash, l.orig+1, l.final+1)
			if i == 0 {
				fmt.Fprintf(&b, " %d", len(g))
			}
			b.WriteString("\n")
			o.details(&b, l.suspect)
			b.WriteString("\t" + withNewline(o.final.lines[l.final]))
		}
	}
	return b.String()
}

// details writes a commit's porcelain header lines and the file names.
func (o blameOutput) details(b *strings.Builder, s *blameOrigin) {
	c := s.commit
	for _, who := range []struct {
		role string
		sig  object.Signature
	}{{"author", c.Author}, {"committer", c.Committer}} {
		fmt.Fprintf(b, "%s %s\n%s-mail <%s>\n%s-time %d\n%s-tz %s\n", who.role, who.sig.Name, who.role,
			who.sig.Email, who.role, who.sig.When.Unix(), who.role, who.sig.When.Format("-0700"))
	}
	fmt.Fprintf(b, "summary %s\n", summary(c.Message))
	if len(c.ParentHashes) == 0 {
		b.WriteString("boundary\n")
	}
	if s.previous != nil {
		fmt.Fprintf(b, "previous %s %s\n", s.previous.commit.Hash, quoteName(s.previous.path, true, false))
	}
	fmt.Fprintf(b, "filename %s\n", quoteName(s.path, true, false))
}

// human is blame's default format with --date=iso: abbreviated commit
// (^ marks a boundary), the file name when lines come from other paths,
// author, date, line number and content.
func (o blameOutput) human() string {
	abbrev, showName, nameWidth, authorWidth, maxLine := 0, false, 0, 0, 0
	for _, l := range o.lines {
		s := l.suspect
		abbrev = max(abbrev, len(o.rp.abbrev(s.commit.Hash)))
		showName = showName || s.path != o.final.path
		nameWidth = max(nameWidth, len(s.path))
		authorWidth = max(authorWidth, displayWidth(s.commit.Author.Name))
		maxLine = max(maxLine, l.final+1)
	}
	abbrev++
	digits := len(strconv.Itoa(maxLine))
	var b strings.Builder
	for _, g := range groups(o.lines) {
		for _, l := range g {
			c := l.suspect.commit
			hash := c.Hash.String()[:abbrev]
			if len(c.ParentHashes) == 0 {
				hash = "^" + hash[:abbrev-1]
			}
			b.WriteString(hash)
			if showName {
				fmt.Fprintf(&b, " %-*s", nameWidth, l.suspect.path)
			}
			pad := strings.Repeat(" ", max(authorWidth-displayWidth(c.Author.Name), 0))
			fmt.Fprintf(&b, " (%s%s %10s %*d) %s", c.Author.Name, pad, c.Author.When.Format("2006-01-02 15:04:05 -0700"),
				digits, l.final+1, withNewline(o.final.lines[l.final]))
		}
	}
	return b.String()
}

func withNewline(l string) string {
	if strings.HasSuffix(l, "\n") {
		return l
	}
	return l + "\n"
}

// summary is the first line of a commit message (git blame's "summary").
func summary(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// displayWidth approximates the terminal columns of s as git's
// utf8_strwidth does: East Asian wide characters take two, combining
// marks none.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200B:
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

func isWide(r rune) bool {
	return (r >= 0x1100 && r <= 0x115F) || (r >= 0x2E80 && r <= 0xA4CF && r != 0x303F) ||
		(r >= 0xAC00 && r <= 0xD7A3) || (r >= 0xF900 && r <= 0xFAFF) || (r >= 0xFE30 && r <= 0xFE4F) ||
		(r >= 0xFF00 && r <= 0xFF60) || (r >= 0xFFE0 && r <= 0xFFE6) || (r >= 0x1F300 && r <= 0x1F64F) ||
		(r >= 0x1F900 && r <= 0x1F9FF) || (r >= 0x20000 && r <= 0x3FFFD)
}
