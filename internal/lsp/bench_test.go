package lsp

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// BenchmarkEditToResult is the delay an edit's result gains with gopls
// warm (docs/PERFORMANCE.md, "Language servers"): each iteration breaks
// or fixes main.go and waits for gopls's report. server is the same sync
// and wait done directly on the connection (gopls's own answer time plus
// the pipe); changed is the whole Changed (routing, baseline, the
// difference, rendering). Their difference is what codewhale adds. go-build
// is `go build` of the same package, what the model would otherwise run to
// learn of the error.
func BenchmarkEditToResult(b *testing.B) {
	ws := goModule(b, map[string]string{"main.go": okMain})
	m := goplsManager(b, ws, 30*time.Second)
	path := filepath.Join(ws, "main.go")
	broken := strings.Replace(okMain, "return 2 * n", `return "two"`, 1)
	texts := []string{broken, okMain}
	if got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(okMain), After: []byte(broken)}}); !strings.Contains(got, "1 new error") {
		b.Fatalf("warm-up: %q", got)
	}
	m.Changed(context.Background(), []Change{{Path: path, Before: []byte(broken), After: []byte(okMain)}})
	b.Run("changed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			after := texts[i%2]
			if got := m.Changed(context.Background(), []Change{{Path: path, Before: []byte(texts[(i+1)%2]), After: []byte(after)}}); (got == "") != (after == okMain) {
				b.Fatalf("iteration %d: %q", i, got)
			}
		}
	})
	r, _, _ := m.route(path)
	c, _ := m.client(r, m.root(r.srv, path))
	uri := protocol.URIFromPath(path)
	b.Run("server", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ctx, cancel := context.WithTimeout(context.Background(), m.opts.Wait)
			s, err := c.sync(ctx, uri, "go", texts[i%2]+strings.Repeat(" ", i%7)) // always a change
			if err != nil || c.diags.wait(ctx, uri, s.before, s.version, c.settled) == nil {
				b.Fatalf("iteration %d: %v", i, err)
			}
			cancel()
		}
	})
	b.Run("go-build", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("go", "build", "-o", filepath.Join(b.TempDir(), "m"), ".")
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("go build: %v %s", err, out)
			}
		}
	})
}

// BenchmarkChangedWithoutServer is an edit of a file no server takes: a
// map lookup per configured server, nothing else.
func BenchmarkChangedWithoutServer(b *testing.B) {
	servers, _ := Merge(nil)
	m := New(Options{Config: Config{Enabled: true, Servers: servers}, Workspace: b.TempDir(), LookPath: exec.LookPath})
	defer m.Close()
	ch := []Change{{Path: filepath.Join(b.TempDir(), "notes.txt"), Before: []byte("a"), After: []byte("b")}}
	for b.Loop() {
		if m.Changed(context.Background(), ch) != "" {
			b.Fatal("a report for a text file")
		}
	}
}
