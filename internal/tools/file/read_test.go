package file

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tools"
)

func numbered(from, to int, line func(int) string) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "%6d│ %s\n", n, line(n))
	}
	return b.String()
}

func TestReadRendering(t *testing.T) {
	t.Parallel()
	lineN := func(n int) string { return fmt.Sprintf("line %d", n) }
	lines := func(n int) string { return numberedRaw(n, lineN) }
	cases := []struct {
		name, content, in, want string
	}{
		{"small file returned raw", "hello\nworld\n", `{"action":"read","path":"f"}`, "hello\nworld\n"},
		{"empty file returned raw", "", `{"action":"read","path":"f"}`, ""},
		{"window of a small file", "a\r\nb\r\nc\r\n", `{"action":"read","path":"f","start_line":2,"max_lines":1}`,
			"<file path=\"f\" total_lines=\"3\" shown_lines=\"2-2\" truncated=\"true\" next_start_line=\"3\">\n" +
				"     2│ b\n\n[TRUNCATED] Showing lines 2-2 of 3. To continue, call File with action=\"read\" path=\"f\" start_line=3 max_lines=1\n</file>"},
		{"window reaching the end", lines(3), `{"action":"read","path":"f","start_line":2}`,
			"<file path=\"f\" total_lines=\"3\" shown_lines=\"2-3\" truncated=\"false\">\n" + numbered(2, 3, lineN) + "</file>"},
		{"more than 500 lines", lines(501), `{"action":"read","path":"f"}`,
			"<file path=\"f\" total_lines=\"501\" shown_lines=\"1-500\" truncated=\"true\" next_start_line=\"501\">\n" +
				numbered(1, 500, lineN) + "\n[TRUNCATED] Showing lines 1-500 of 501. To continue, call File with " +
				"action=\"read\" path=\"f\" start_line=501 max_lines=500\n</file>"},
		{"max_lines clamps to 500", lines(600), `{"action":"read","path":"f","start_line":101,"max_lines":9000}`,
			"<file path=\"f\" total_lines=\"600\" shown_lines=\"101-600\" truncated=\"false\">\n" + numbered(101, 600, lineN) + "</file>"},
		{"start past EOF", "a\nb\n", `{"action":"read","path":"f","start_line":9}`,
			"<file path=\"f\" total_lines=\"2\" shown_lines=\"none\" truncated=\"false\">\n\n[NO CONTENT] start_line 9 is beyond total_lines 2.\n</file>"},
		{"no trailing newline", "x\ny", `{"action":"read","path":"f","max_lines":5}`,
			"<file path=\"f\" total_lines=\"2\" shown_lines=\"1-2\" truncated=\"false\">\n     1│ x\n     2│ y\n</file>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{})
			e.put("f", c.content)
			if got := e.callOK(c.in).Content; got != c.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, c.want)
			}
		})
	}
}

func numberedRaw(n int, line func(int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(line(i) + "\n")
	}
	return b.String()
}

func TestReadBudgetCutsTheMiddle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	// 400 lines of 100 bytes: the window renders to ~43 KB, over the 16 KiB budget.
	e.put("wide.txt", numberedRaw(400, func(n int) string { return fmt.Sprintf("%03d%s", n, strings.Repeat("x", 97)) }))
	got := e.callOK(`{"action":"read","path":"wide.txt"}`).Content
	mustContain(t, got, "truncated=\"true\"", contentCutMarker, "     1│ 001", "   400│ 400",
		"[CONTENT TRUNCATED] Lines 1-400 render to", "Re-read narrower windows")
	if len(got) > readBudget+1024 {
		t.Errorf("rendered %d bytes, budget %d", len(got), readBudget)
	}
	if strings.Contains(got, "   200│ 200") {
		t.Error("the middle of the window was not cut")
	}

	// One line longer than the whole budget points at search_content / cut -c.
	e.put("long.txt", "short\n"+strings.Repeat("é", 20000)+"\nend\n")
	got = e.callOK(`{"action":"read","path":"long.txt"}`).Content
	mustContain(t, got, "[CONTENT TRUNCATED] Line 2 alone is", "search_content", "cut -c")
	if !strings.HasSuffix(got, "</file>") || strings.ContainsRune(got, '\uFFFD') {
		t.Error("cut broke the frame or split a rune")
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("bad.bin", "ok\xff\xfe")
	e.put("dir/x", "")
	e.put("doc.txt", "text")
	cases := []struct{ in, want string }{
		{`{"action":"read","path":"bad.bin"}`, "Failed to read " + e.path("bad.bin") + ": stream did not contain valid UTF-8"},
		{`{"action":"read","path":"missing.txt"}`, "Failed to read " + e.path("missing.txt") + ": no such file or directory"},
		{`{"action":"read","path":"dir"}`, "Failed to read " + e.path("dir") + ": is a directory."},
		{`{"action":"read","path":"doc.txt","start_line":0}`, "start_line must be 1-based and greater than 0"},
		{`{"action":"read","path":"doc.txt","max_lines":0}`, "max_lines must be greater than 0"},
		{`{"action":"read","path":"doc.txt","pages":"2-1"}`, "invalid `pages` value `2-1` (expected `N` or `N-M`, e.g. `1-5`)"},
		{`{"action":"read","path":"doc.txt","pages":"x"}`, "invalid `pages` value `x` (expected `N` or `N-M`, e.g. `1-5`)"},
		{`{"action":"read","path":"doc.txt","pages":"1"}`, "`pages` applies only to PDF files"},
	}
	for _, c := range cases {
		mustContain(t, e.callErr(c.in), c.want)
	}
}

func TestReadWorkspaceBoundary(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, e.path("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.path("linkdir")); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{"action":"read","path":"../../etc/passwd"}`,
		`{"action":"read","path":"/etc/passwd"}`,
		`{"action":"read","path":"link.txt"}`,
		`{"action":"read","path":"linkdir/secret.txt"}`,
		`{"action":"list","path":"linkdir"}`,
		`{"action":"search_content","pattern":"secret","path":"linkdir"}`,
		`{"action":"search_name","query":"secret","path":".."}`,
	} {
		_, err := e.call(in)
		if te := tools.AsError(err); err == nil || te.Kind != tools.KindPathEscape {
			t.Errorf("%s: want PathEscape, got %v", in, err)
			continue
		}
		mustContain(t, errText(err), "Path escapes workspace: ", ". Use a workspace-relative path or enable trust mode.")
	}
	// A trusted root widens the boundary by exactly that root.
	e.tc.TrustedRoots = []string{tools.Canonical(filepath.Dir(secret))}
	if got := e.callOK(`{"action":"read","path":"link.txt"}`).Content; got != "top secret" {
		t.Errorf("trusted read: %q", got)
	}
	if _, err := e.call(`{"action":"read","path":"/etc/passwd"}`); tools.AsError(err).Kind != tools.KindPathEscape {
		t.Errorf("outside every trusted root: %v; want PathEscape", err)
	}
}

func TestReadCredentialGuard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cfg := e.put("conf/config.toml", "api_key = \"sk-123\"\n")
	e.put("conf/config.toml.bak", "api_key = \"sk-old\"\n")
	e.put("conf/secrets/deepseek", "sk-456")
	g := newGuard([]string{cfg, e.path("conf/secrets")})
	e.tool.guard = func() guard { return g }
	for _, p := range []string{"conf/config.toml", "conf/config.toml.bak", "conf/secrets/deepseek"} {
		_, err := e.call(`{"action":"read","path":"` + p + `"}`)
		te := tools.AsError(err)
		if err == nil || te.Kind != tools.KindPermissionDenied || te.Msg != credentialRefusal {
			t.Errorf("%s: want the credential refusal, got %v", p, err)
		}
	}
	home := t.TempDir()
	tool := New(Options{Secrets: secrets.New(secrets.Options{UserHome: home, Home: filepath.Join(home, ".codewhale")})})
	if !tool.Secret(filepath.Join(home, ".codewhale", "config.toml")) {
		t.Error("the built-in guard does not cover ~/.codewhale/config.toml")
	}
}

func TestNonUTF8NamesAndReadSnapshot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, writable)
	// A Latin-1 byte makes the name invalid UTF-8. JSON cannot carry it, so
	// the listings show it lossily (U+FFFD) but stay valid JSON.
	e.put("caf\xe9.txt", "bonjour needle\n")
	list := decode[[]listEntry](t, e.callOK(`{"action":"list"}`).Content)
	if len(list) != 1 || list[0].Name != "caf\uFFFD.txt" {
		t.Errorf("list: %+v", list)
	}
	found := decode[contentResult](t, e.callOK(`{"action":"search_content","pattern":"needle"}`).Content)
	if found.TotalMatches != 1 || found.Matches[0].File != "caf\uFFFD.txt" {
		t.Errorf("search_content: %+v", found)
	}
	names := decode[[]nameMatch](t, e.callOK(`{"action":"search_name","query":"caf"}`).Content)
	if len(names) != 1 {
		t.Errorf("search_name: %+v", names)
	}

	e.put("ok.txt", "x\n")
	e.callOK(`{"action":"read","path":"ok.txt"}`)
	if !e.tool.ReadStamps().Has(e.path("ok.txt")) {
		t.Error("a successful read did not record a snapshot")
	}
}

func TestReadPDF(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		e2e.Missing(t, "pdftotext is not installed (Debian: poppler-utils)")
	}
	t.Parallel()
	e := newEnv(t, Options{})
	e.put("doc.pdf", minimalPDF("Hello PDF world"))
	got := e.callOK(`{"action":"read","path":"doc.pdf","pages":"1"}`).Content
	mustContain(t, got, "Hello PDF world")
	mustContain(t, e.callErr(`{"action":"read","path":"doc.pdf","pages":"0"}`), "invalid `pages` value `0`")
}

func TestReadMediaWithoutBackend(t *testing.T) {
	// Not parallel: PATH is process-wide.
	t.Setenv("PATH", t.TempDir())
	e := newEnv(t, Options{})
	e.put("doc.pdf", minimalPDF("x"))
	e.put("shot.png", "\x89PNG\r\n\x1a\n")
	mustContain(t, e.callErr(`{"action":"read","path":"doc.pdf"}`), "no PDF text extractor is installed", "pdftotext")
	mustContain(t, e.callErr(`{"action":"read","path":"shot.png"}`), "no OCR backend is installed", "tesseract")
}

// minimalPDF builds a one-page PDF showing text, with a correct xref table.
func minimalPDF(text string) string {
	stream := "BT /F1 24 Tf 72 720 Td (" + text + ") Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.String()
}

// A read runs without asking, so its extractor never comes from a
// workspace directory on PATH (a patch can create an executable there).
func TestReadMediaIgnoresAWorkspaceExtractor(t *testing.T) {
	// Not parallel: PATH is process-wide.
	e := newEnv(t, Options{})
	e.put("doc.pdf", minimalPDF("x"))
	bin := filepath.Join(e.ws, ".venv", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "pdftotext"), []byte("#!/bin/sh\necho planted-extractor\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	got := e.callErr(`{"action":"read","path":"doc.pdf"}`)
	mustContain(t, got, "no PDF text extractor is installed")
	if strings.Contains(got, "planted-extractor") {
		t.Errorf("the workspace's pdftotext ran: %q", got)
	}
}

// The extractor gets the environment a Bash command gets: a stand-in
// pdftotext that prints its environment never shows the agent's key.
func TestReadMediaExtractorGetsTheScrubbedEnvironment(t *testing.T) {
	// Not parallel: PATH and the key are process-wide.
	t.Setenv("DEEPSEEK_API_KEY", "sk-canary-media")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "pdftotext"), []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin:/bin")
	e := newEnv(t, Options{})
	e.put("doc.pdf", minimalPDF("x"))
	got := e.callOK(`{"action":"read","path":"doc.pdf"}`).Content
	mustContain(t, got, "PATH=")
	if strings.Contains(got, "sk-canary") {
		t.Errorf("pdftotext saw the key: %q", got)
	}
}
