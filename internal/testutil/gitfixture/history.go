package gitfixture

import (
	"strings"
	"testing"
)

// GoSource is a small Go file the fixture edits inside functions.
const GoSource = `package demo

import "fmt"

// Greeter says hello.
type Greeter struct {
	Name string
}

func (g Greeter) Hello() string {
	msg := "hello"
	if g.Name != "" {
		msg += ", " + g.Name
	}
	return msg
}

func helper(n int) int {
	total := 0
	for i := 0; i < n; i++ {
		total += i
	}
	return total
}

func main() {
	fmt.Println(Greeter{Name: "x"}.Hello(), helper(3))
}
`

// Attributes is the fixture's .gitattributes: CRLF checkouts, a binary
// pattern and a file git diffs as binary.
const Attributes = "*.crlf text eol=crlf\n*.bin binary\nnodiff.txt -diff\n"

func story(edit bool) string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		line := "line " + strings.Repeat("x", i) + "\n"
		if edit && i == 11 {
			line = "line eleven, edited\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// History builds the repository the differential tests walk. Every class
// of change the Git and File patch actions must get right is in it:
//
//   - newlines both ways ("a\nb" → "a\nb\nc\n"; a new file without one; a
//     file losing its last newline), CRLF files stored as CRLF, mixed line
//     endings, CRLF checkouts from .gitattributes (text eol=crlf), -diff;
//   - pure renames (one with a space, one out of nested directories), a
//     rename with an edit, a copy with an edit, executable bits set and
//     cleared, an empty file added and deleted;
//   - a tracked symlink retargeted, a symlink to a directory retargeted, a
//     regular file turned into a symlink;
//   - a deleted file and a deleted folder, binary edits, non-ASCII and
//     non-UTF-8 (Latin-1) file names, Latin-1 content;
//   - a side branch by a second author merged with --no-ff, and a tag;
//   - a Latin-1 encoded commit message, and one with tabs (after wide
//     characters too) that git expands.
func History(t testing.TB) *Repo {
	r := New(t)
	r.Write(".gitattributes", Attributes)
	r.Write("demo.go", GoSource)
	r.Write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\n")
	r.Write("docs/old name.txt", strings.Repeat("rename me please\n", 8))
	r.Write("story.txt", story(false))
	r.Write("gone.txt", "to be deleted\n")
	r.Write("gonedir/a.txt", "a\n")
	r.Write("gonedir/sub/b.txt", "b\n")
	r.Write("data.bin", "\x00\x01\x02binary\x00")
	r.Write("target.txt", "target\n")
	r.Write("plain.txt", "plain\n")
	r.Symlink("target.txt", "link.txt")
	r.Symlink("docs", "dirlink")
	r.Write("nonl.txt", "a\nb")
	r.Write("run.sh", "#!/bin/sh\necho hi\n")
	r.Write("win.crlf", "one\r\ntwo\r\nthree\r\n")
	r.Write("raw-crlf.txt", "x\r\ny\r\n")
	r.Write("mixed.txt", "lf\ncrlf\r\nlf\n")
	r.Write("nodiff.txt", "secret\n")
	r.Write("nested/deep/er/file.txt", "deep\n")
	r.Write("ünïcødé/файл.txt", "привет\n")
	r.Write("caf\xe9.txt", "latin name\n")
	r.Write("latin1.txt", "caf\xe9\n")
	r.Write("becomes-link", "a regular file for now\n")
	r.Commit("Initial import\n\nWith a body line.")

	r.Write("nonl.txt", "a\nb\nc\n")
	r.Write("nofinal.txt", "x\ny")
	r.Write("plain.txt", "plain\nmore")
	r.Write("demo.go", strings.Replace(GoSource, "total += i", "total += i * 2", 1))
	r.Write("raw-crlf.txt", "x\r\ny\r\nz\r\n")
	r.Write("mixed.txt", "lf\ncrlf\r\nnew lf\nlf\n")
	r.Commit("Newlines both ways")

	r.Run("mv", "docs/old name.txt", "docs/new name.txt")
	r.Run("mv", "nested/deep/er/file.txt", "nested/file.txt")
	r.Run("mv", "story.txt", "tale.txt")
	r.Write("tale.txt", story(true))
	r.Chmod("run.sh", 0o755)
	r.Write("tool.sh", "#!/bin/sh\necho tool\n")
	r.Chmod("tool.sh", 0o755)
	r.Commit("Renames and modes")

	r.Symlink("plain.txt", "link.txt")
	r.Remove("gone.txt")
	r.Remove("gonedir")
	r.Write("data.bin", "\x00\x01\x03binary!\x00")
	r.Write("win.crlf", "one\r\ntwo, edited\r\nthree\r\n")
	r.Write("nodiff.txt", "secret, changed\n")
	r.Write("caf\xe9.txt", "latin name\nedited\n")
	r.Commit("Links, deletions, binary")
	r.Run("tag", "-a", "v1.0", "-m", "Release 1.0")

	r.Run("checkout", "-q", "-b", "side")
	r.As("Grace Hopper", "grace@example.com", func() {
		r.Write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\nStep three.\n")
		r.Commit("Side: extend the guide")
	})
	r.Run("checkout", "-q", "main")
	r.Write("demo.go", strings.Replace(strings.Replace(GoSource, "total += i", "total += i * 2", 1),
		`msg := "hello"`, `msg := "hi"`, 1))
	r.Commit("Main: shorter greeting")
	r.Tick()
	r.Run("merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")

	demo := strings.Replace(strings.Replace(GoSource, "total += i", "total += i * 2", 1), `msg := "hello"`, `msg := "hey"`, 1)
	r.Write("demo.go", demo)
	r.Write("demo_copy.go", strings.Replace(demo, "package demo", "package democopy", 1))
	r.Chmod("run.sh", 0o644)
	r.Write("empty.txt", "")
	r.Commit("Copy and mode back")

	r.Remove("becomes-link")
	r.Symlink("docs", "becomes-link")
	r.Symlink("nested", "dirlink")
	r.Remove("nofinal.txt")
	r.Remove("empty.txt")
	r.Commit("Type changes and removals")

	r.Write("latin1.txt", "caf\xe9\nna\xefve\n")
	r.Write("docs/guide.md", "# Guide\n\nStep one.\nStep two.\nStep three.\nStep four.\n")
	r.Run("config", "i18n.commitEncoding", "ISO-8859-1")
	r.Commit("Latin-1 text, caf\xe9 in a Latin-1 message")
	r.Run("config", "--unset", "i18n.commitEncoding")

	r.Write("docs/guide.md", "# Guide\n\nStep one.\n")
	r.Commit("Tabs\tin the subject\n\n\tan indented body line\n界\tafter a wide character\nab\tcd\tef\n\n")
	return r
}
