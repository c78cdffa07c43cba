package file

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

// benchPatterns are searched over $(go env GOROOT)/src by File and by rg
// with the same ignore rules: patterns with a required literal, one with a
// case-folded literal, and ones without any literal.
var benchPatterns = []struct{ name, pattern string }{
	{"handler", `func \w+Handler\(`},
	{"fold", `(?i)unicode\.simplefold`},
	{"fold-alternation", `(?i)STRASSE|ǅ`},
	{"no-literal", `\b[a-z]{24,}\b`},
	{"no-literal-unicode", `\p{Greek}+`},
}

// rgArgs makes rg read the tree as File's search_content does by default:
// ignore files with or without a repository, hidden files, CRLF line ends,
// the default excludes, files over 10 MiB skipped, 2 lines of context.
// Parallel and unsorted: rg at its fastest.
func rgArgs(pattern string) []string {
	args := []string{"--no-require-git", "--hidden", "--no-config", "--crlf", "--max-filesize", "10M", "-n", "-C", "2",
		"-g", "!.git"}
	for _, g := range []string{"node_modules/", "target/", "dist/", "build/", "__pycache__/", ".venv/", "venv/", "*.min.js", "*.min.css"} {
		args = append(args, "-g", "!"+g)
	}
	return append(args, "-e", pattern, ".")
}

// BenchmarkSearchContentGoroot searches GOROOT/src in place (read-only) with
// a budget large enough that the whole tree is searched.
func BenchmarkSearchContentGoroot(b *testing.B) {
	src := gorootSrc(b)
	tool := New(Options{})
	tc := &tools.Context{Workspace: src}
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			in, _ := json.Marshal(map[string]any{"action": "search_content", "pattern": p.pattern, "max_results": 1000000})
			var res tools.Result
			for b.Loop() {
				var err error
				if res, err = tool.Execute(context.Background(), tc, in); err != nil {
					b.Fatal(err)
				}
			}
			var r contentResult
			if err := json.Unmarshal([]byte(res.Content), &r); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.TotalMatches), "matches")
			b.ReportMetric(float64(r.FilesSearched), "files")
		})
	}
}

// BenchmarkRipgrepGoroot runs rg with the same pattern and ignore rules, so
// the ratio to BenchmarkSearchContentGoroot can be recorded.
func BenchmarkRipgrepGoroot(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		e2e.Missing(b, "rg is not installed (apt-get install -y ripgrep)")
	}
	src := gorootSrc(b)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				cmd := exec.Command(rg, rgArgs(p.pattern)...)
				cmd.Dir = src
				var err error
				if out, err = cmd.Output(); err != nil {
					b.Fatal(err)
				}
			}
			matches := 0
			for _, l := range bytes.Split(out, []byte{'\n'}) {
				// Match lines are "path:N:text"; context lines use '-'.
				if i := bytes.IndexByte(l, ':'); i > 0 && len(l) > i+1 && l[i+1] >= '0' && l[i+1] <= '9' {
					matches++
				}
			}
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

// BenchmarkRead10MB reads a 10 MB text file: the default window (the first
// 500 lines) and a window at the end.
func BenchmarkRead10MB(b *testing.B) {
	dir := tools.Canonical(b.TempDir())
	var sb strings.Builder
	for n := 0; sb.Len() < 10<<20; n++ {
		fmt.Fprintf(&sb, "line %07d: the quick brown fox jumps over the lazy dog\n", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	total := countLines([]byte(sb.String()))
	tool := New(Options{})
	tc := &tools.Context{Workspace: dir}
	for _, c := range []struct {
		name string
		in   string
	}{
		{"head", `{"action":"read","path":"big.txt"}`},
		{"tail", fmt.Sprintf(`{"action":"read","path":"big.txt","start_line":%d}`, total-499)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(sb.Len()))
			for b.Loop() {
				res, err := tool.Execute(context.Background(), tc, json.RawMessage(c.in))
				if err != nil || !strings.Contains(res.Content, "total_lines=") {
					b.Fatalf("read: %v %.200s", err, res.Content)
				}
			}
		})
	}
}
