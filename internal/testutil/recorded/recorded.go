// Package recorded holds chat-completion streams that real servers sent,
// taken from the public test fixtures of projects that recorded them
// (testdata/README.md says where each comes from), for replay through
// fakemodel.Reply.Raw: the wire differences between OpenAI-compatible
// servers are tested on what those servers actually sent.
package recorded

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed testdata/*.sse
var files embed.FS

// Turns returns the recorded responses of name, in the order the server
// sent them (name.1.sse, name.2.sse, …).
func Turns(name string) [][]byte {
	paths, _ := fs.Glob(files, "testdata/"+name+".*.sse")
	sort.Strings(paths)
	out := make([][]byte, 0, len(paths))
	for _, p := range paths {
		b, err := files.ReadFile(p)
		if err != nil {
			panic(fmt.Sprintf("recorded: %s: %v", p, err))
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		panic("recorded: no recording named " + name)
	}
	return out
}

// Names lists the recordings.
func Names() []string {
	paths, _ := fs.Glob(files, "testdata/*.1.sse")
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, "testdata/"), ".1.sse"))
	}
	sort.Strings(out)
	return out
}
