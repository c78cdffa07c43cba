package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// The tests below pin the "Post-edit diagnostics" sentences of CONTRACT.md
// §6.13. Their peer is this test binary with CODEWHALE_FAKE_LSP613 set: a
// well-behaved server that judges a document by its text (a line holding
// BAD is an error, WARN a warning, INFO an info, HINT a hint; NOSRC leaves
// the source out) and logs every notification it gets to
// CODEWHALE_FAKE_LSP613_LOG. Its mode, a comma-separated list, bends one
// behaviour at a time.

func init() {
	if mode, ok := os.LookupEnv("CODEWHALE_FAKE_LSP613"); ok {
		fake613(mode)
		os.Exit(0)
	}
}

func fake613(mode string) {
	has := func(flag string) bool {
		for _, f := range strings.Split(mode, ",") {
			if f == flag {
				return true
			}
		}
		return false
	}
	logf := func(format string, args ...any) {
		if p := os.Getenv("CODEWHALE_FAKE_LSP613_LOG"); p != "" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintf(f, format+"\n", args...)
				_ = f.Close()
			}
		}
	}
	in := bufio.NewReader(os.Stdin)
	for {
		msg, err := fakeRead(in)
		if err != nil {
			return
		}
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int    `json:"version"`
				Text    string `json:"text"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Text string `json:"text"`
			} `json:"contentChanges"`
			Text *string `json:"text"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		uri, version := p.TextDocument.URI, p.TextDocument.Version
		report := func(text string, v int) {
			if has("silent") || has("onlychange") && v < 2 {
				return
			}
			if has("stale") && v > 1 {
				fake613Publish(uri, v-1, []string{"BAD stale"}) // a late answer for the old version
				time.Sleep(100 * time.Millisecond)
			}
			if has("unversioned") {
				v = 0
			}
			fake613Publish(uri, v, strings.Split(text, "\n"))
		}
		switch msg.Method {
		case "initialize":
			sync := map[string]any{"openClose": true, "change": 1}
			if has("save") {
				sync["save"] = map[string]any{"includeText": true}
			}
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{
				"textDocumentSync": sync}}})
		case "initialized":
			if path := os.Getenv("CODEWHALE_FAKE_LSP613_UNASKED"); path != "" {
				// A report nobody asked for, of a file nobody opened (gopls
				// reports on the whole workspace), from the disk.
				data, _ := os.ReadFile(path)
				fake613Publish(string(protocol.URIFromPath(path)), 0, strings.Split(string(data), "\n"))
			}
		case "textDocument/didOpen":
			logf("didOpen %d %q", version, p.TextDocument.Text)
			report(p.TextDocument.Text, version)
		case "textDocument/didChange":
			text := ""
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[0].Text
			}
			logf("didChange %d %d %q", version, len(p.ContentChanges), text)
			report(text, version)
		case "textDocument/didSave":
			withText := ""
			if p.Text != nil {
				withText = *p.Text
			}
			logf("didSave %q", withText)
		case "shutdown":
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case "exit":
			return
		}
	}
}

// fake613Publish publishes the problems of lines for uri at version (0: none said).
func fake613Publish(uri string, version int, lines []string) {
	diags := []map[string]any{}
	for i, line := range lines {
		for sev, marker := range []string{"BAD", "WARN", "INFO", "HINT"} {
			col := strings.Index(line, marker)
			if col < 0 {
				continue
			}
			d := map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": col},
				"end": map[string]int{"line": i, "character": col + 1}}, "severity": sev + 1, "source": "fake613",
				"message": strings.TrimSpace(line[col:])}
			if strings.Contains(line, "NOSRC") {
				delete(d, "source")
			}
			diags = append(diags, d)
		}
	}
	fakeWrite(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
		"params": map[string]any{"uri": uri, "version": version, "diagnostics": diags}})
}

// c613 is a manager over the fake613 server and the log of what it was told.
type c613 struct {
	m   *Manager
	ws  string
	log string
}

func c613Manager(t *testing.T, mode string, tweak func(*Options, *Server)) *c613 {
	t.Helper()
	h := &c613{ws: c128Canonical(t)}
	h.log = filepath.Join(t.TempDir(), "log")
	srv := Server{Name: "fake613", Command: c128Exe(t), Languages: []string{"go"},
		Env: []string{"CODEWHALE_FAKE_LSP613=" + mode, "CODEWHALE_FAKE_LSP613_LOG=" + h.log}}
	o := Options{Config: Config{Enabled: true, Wait: 20 * time.Second}, Workspace: h.ws,
		LookPath: exec.LookPath, InitTimeout: 30 * time.Second, Grace: time.Second}
	if tweak != nil {
		tweak(&o, &srv)
	}
	o.Servers = []Server{srv}
	h.m = New(o)
	t.Cleanup(h.m.Close)
	return h
}

func (h *c613) path(name string) string { return filepath.Join(h.ws, name) }

func (h *c613) change(before, after string) string {
	ch := Change{Path: h.path("a.go"), After: []byte(after)}
	if before != "" {
		ch.Before = []byte(before)
	}
	return h.m.Changed(context.Background(), []Change{ch})
}

// told is what the server logged, one notification a line.
func (h *c613) told(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(h.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// CONTRACT.md §6.13: "Each changed file is synced to its server (didOpen the first time, then didChange with the whole
// text and didSave when the server asks for it)".
func TestContract613SyncOpensThenChangesWholeTextAndSavesWhenAsked(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"save", "nosave"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := c613Manager(t, mode, nil)
			v1, v2 := "package a\n", "package a\n\nvar x = 1\n"
			h.change("", v1)
			h.change(v1, v2)
			want := []string{fmt.Sprintf("didOpen 1 %q", v1), fmt.Sprintf("didChange 2 1 %q", v2)}
			if mode == "save" {
				want = append(want, fmt.Sprintf("didSave %q", v2))
				// didSave follows the didChange the report answered.
				c128Eventually(t, 10*time.Second, "didSave logged", func() bool { return len(h.told(t)) >= len(want) })
			}
			if got := h.told(t); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the server was told\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// CONTRACT.md §6.13: the report is "awaited for at most poll_after_edit_ms (default 1,500 ms)"; a server that does not
// report gives `LSP: no diagnostics from <server> (it did not report within <wait>)`.
// README.md "Language servers": an edit waits at most poll_after_edit_ms, 1500 by default.
func TestContract613WaitDefaultsTo1500msAndSaysItDidNotReport(t *testing.T) {
	t.Parallel()
	if DefaultWait != 1500*time.Millisecond || New(Options{}).Wait() != DefaultWait {
		t.Fatalf("default wait %v", New(Options{}).Wait())
	}
	h := c613Manager(t, "silent", func(o *Options, _ *Server) { o.Wait = 0 })
	h.change("", "package a\n") // the start may take part of the first wait
	start := time.Now()
	got := h.change("package a\n", "package a\nBAD\n")
	if el := time.Since(start); el < 1400*time.Millisecond || el > 4*time.Second {
		t.Errorf("waited %v, want about 1.5s", el)
	}
	if want := "LSP: no diagnostics from fake613 (it did not report within 1.5s)"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: "returning as soon as the server reports"; "the first publishDiagnostics for the new version" (a
// set published for an older version is not taken).
// README.md "Language servers": the edit returns as soon as the server has reported.
func TestContract613ReturnsAsSoonAsTheNewVersionIsReported(t *testing.T) {
	t.Parallel()
	h := c613Manager(t, "stale", nil) // the wait is 20 s
	h.change("", "package a\n")
	start := time.Now()
	got := h.change("package a\n", "package a\nBAD new\n")
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v of a 20s wait", el)
	}
	want := "LSP (fake613): 1 new error in a.go after this change:\na.go:2:1 error fake613: BAD new"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: "from a server that publishes without versions (and may publish a file's problems in parts), the last
// set once none newer has come for 100 ms (500 ms when it lists no problems)".
func TestContract613UnversionedSetSettlesAfter100msOr500msWhenClean(t *testing.T) {
	t.Parallel()
	uri := protocol.DocumentURI("file:///w/a.go")
	bad := []protocol.Diagnostic{{Severity: 1, Message: "bad"}}
	for _, c := range []struct {
		name     string
		items    []protocol.Diagnostic
		min, max time.Duration
	}{
		{"problems", bad, 90 * time.Millisecond, 480 * time.Millisecond}, // under the clean wait
		{"clean", []protocol.Diagnostic{}, 490 * time.Millisecond, 3 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var s diagStore
			s.init()
			after := s.now()
			start := time.Now()
			s.publish(uri, 0, c.items)
			p := s.wait(context.Background(), uri, after, 1, make(chan struct{}))
			if el := time.Since(start); el < c.min || el > c.max {
				t.Errorf("settled after %v, want %v..%v", el, c.min, c.max)
			}
			if p == nil || len(p.items) != len(c.items) {
				t.Fatalf("got %+v", p)
			}
		})
	}
	// A newer part within the quiet time replaces the first: the last set is taken.
	var s diagStore
	s.init()
	after := s.now()
	s.publish(uri, 0, []protocol.Diagnostic{})
	go func() {
		time.Sleep(200 * time.Millisecond)
		s.publish(uri, 0, bad)
	}()
	if p := s.wait(context.Background(), uri, after, 1, make(chan struct{})); p == nil || len(p.items) != 1 {
		t.Fatalf("the second part was not waited for: %+v", p)
	}
	// A versioned set is taken at once, an older version not at all.
	after = s.now()
	s.publish(uri, 1, bad)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if p := s.wait(ctx, uri, after, 2, make(chan struct{})); p != nil {
		t.Fatalf("a set for an older version was taken: %+v", p)
	}
	after = s.now()
	s.publish(uri, 2, bad)
	start := time.Now()
	if p := s.wait(context.Background(), uri, after, 2, make(chan struct{})); p == nil || time.Since(start) > 95*time.Millisecond { // under the 100 ms settle
		t.Fatalf("the set for the version was not taken at once: %+v", p)
	}
}

// CONTRACT.md §6.13: an unversioned publisher's report, end to end.
func TestContract613UnversionedPublisherIsReported(t *testing.T) {
	t.Parallel()
	h := c613Manager(t, "unversioned", nil)
	h.change("", "package a\n")
	got := h.change("package a\n", "package a\nBAD x\n")
	if want := "LSP (fake613): 1 new error in a.go after this change:\na.go:2:1 error fake613: BAD x"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: "a problem is the same across the change when its severity, source, code, message and the text of
// its line are (a multiset difference, so moved lines do not count as new)".
// README.md "Language servers": only the problems the change introduced are reported, not those there before.
func TestContract613OnlyNewProblemsByMultisetDifference(t *testing.T) {
	t.Parallel()
	m := New(Options{Config: Config{Enabled: true}})
	d := func(line uint32, sev protocol.DiagnosticSeverity, src string, code any, msg string) protocol.Diagnostic {
		return protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line}}, Severity: sev,
			Source: src, Code: code, Message: msg}
	}
	beforeText := "x := 1\ny := 2\n"
	afterText := "// moved\n\nx := 1\ny := 2\nx := 1\n"
	before := []protocol.Diagnostic{d(0, 1, "s", "c", "m")}
	cases := []struct {
		name  string
		after []protocol.Diagnostic
		new   int
	}{
		{"moved", []protocol.Diagnostic{d(2, 1, "s", "c", "m")}, 0},
		{"moved and repeated", []protocol.Diagnostic{d(2, 1, "s", "c", "m"), d(4, 1, "s", "c", "m")}, 1},
		{"other severity", []protocol.Diagnostic{d(2, 2, "s", "c", "m")}, 1},
		{"other source", []protocol.Diagnostic{d(2, 1, "t", "c", "m")}, 1},
		{"other code", []protocol.Diagnostic{d(2, 1, "s", "k", "m")}, 1},
		{"other message", []protocol.Diagnostic{d(2, 1, "s", "c", "n")}, 1},
		{"other line text", []protocol.Diagnostic{d(3, 1, "s", "c", "m")}, 1},
	}
	for _, c := range cases {
		m.opts.IncludeWarnings = true
		out, old := m.fresh(before, beforeText, c.after, afterText)
		if len(out) != c.new || old != len(c.after)-c.new {
			t.Errorf("%s: %d new, %d old; want %d new", c.name, len(out), old, c.new)
		}
	}
	// End to end: a problem whose line moved is not repeated; one added is.
	h := c613Manager(t, "", nil)
	v1 := "package a\n\nvar x = 1 // BAD x\n"
	h.change("", v1)
	got := h.change(v1, "package a\n\n// new\nvar x = 1 // BAD x\nvar y = 1 // BAD y\n")
	want := "LSP (fake613): 1 new error in a.go after this change (1 other there before not repeated):\n" +
		"a.go:5:14 error fake613: BAD y"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: "The problems the file had before are the server's last report of the open document, else one it
// sent unasked, else its report on the old text, opened first (waiting at most half of what is left); a file with
// none has every problem listed."
func TestContract613BeforeSetRules(t *testing.T) {
	t.Parallel()
	old := "package a\n\nvar x = 1 // BAD x\n"
	changed := old + "var y = 1 // BAD y\n"
	wantOne := "LSP (fake613): 1 new error in a.go after this change (1 other there before not repeated):\n" +
		"a.go:4:14 error fake613: BAD y"
	t.Run("open document", func(t *testing.T) {
		t.Parallel()
		h := c613Manager(t, "", nil)
		h.m.Opened(h.path("a.go"), []byte(old))
		c := waitClient(t, h.m)
		c128Eventually(t, 20*time.Second, "the read reported", func() bool {
			return c.diags.get(protocol.URIFromPath(h.path("a.go"))) != nil
		})
		// The old text given is not what the server judged: the open document's report is used.
		if got := h.change("package a\n", changed); got != wantOne {
			t.Fatalf("got %q\nwant %q", got, wantOne)
		}
		if told := h.told(t); len(told) != 2 || !strings.HasPrefix(told[0], "didOpen 1") || !strings.HasPrefix(told[1], "didChange 2") {
			t.Fatalf("told %q", told)
		}
	})
	t.Run("unasked", func(t *testing.T) {
		t.Parallel()
		var h *c613
		ws := c128Canonical(t)
		path := filepath.Join(ws, "a.go")
		if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		h = c613Manager(t, "", func(o *Options, s *Server) {
			o.Workspace = ws
			s.Env = append(s.Env, "CODEWHALE_FAKE_LSP613_UNASKED="+path)
		})
		h.ws = ws
		h.m.Opened(filepath.Join(ws, "b.go"), []byte("package a\n")) // starts the server
		c := waitClient(t, h.m)
		c128Eventually(t, 20*time.Second, "the unasked report came", func() bool {
			return c.diags.get(protocol.URIFromPath(path)) != nil
		})
		if got := h.change(old, changed); got != wantOne {
			t.Fatalf("got %q\nwant %q", got, wantOne)
		}
		for _, line := range h.told(t) {
			if strings.Contains(line, "didOpen") && strings.Contains(line, fmt.Sprintf("%q", old)) {
				t.Fatalf("the old text was opened though the server had reported on it: %q", h.told(t))
			}
		}
	})
	t.Run("old text opened first", func(t *testing.T) {
		t.Parallel()
		h := c613Manager(t, "", nil)
		if got := h.change(old, changed); got != wantOne {
			t.Fatalf("got %q\nwant %q", got, wantOne)
		}
		want := []string{fmt.Sprintf("didOpen 1 %q", old), fmt.Sprintf("didChange 2 1 %q", changed)}
		if got := h.told(t); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("told %q\nwant %q", got, want)
		}
	})
	t.Run("old text waits half", func(t *testing.T) {
		t.Parallel()
		// The server reports only on the change: the old text's report is
		// waited for half of what is left, then every problem is new.
		h := c613Manager(t, "onlychange", func(o *Options, _ *Server) { o.Wait = 4 * time.Second })
		h.m.Opened(h.path("b.go"), []byte("package a\n"))
		c := waitClient(t, h.m)
		<-c.ready
		start := time.Now()
		got := h.change(old, changed)
		if el := time.Since(start); el < 1900*time.Millisecond || el > 3900*time.Millisecond {
			t.Errorf("took %v, want about half of 4s", el)
		}
		want := "LSP (fake613): 2 new errors in a.go after this change:\n" +
			"a.go:3:14 error fake613: BAD x\na.go:4:14 error fake613: BAD y"
		if got != want {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		h := c613Manager(t, "", nil)
		want := "LSP (fake613): 2 new errors in a.go after this change:\n" +
			"a.go:3:14 error fake613: BAD x\na.go:4:14 error fake613: BAD y"
		if got := h.change("", changed); got != want {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}

// waitClient is m's one server once it has been started.
func waitClient(t *testing.T, m *Manager) *client {
	t.Helper()
	var c *client
	c128Eventually(t, 20*time.Second, "a server started", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, cl := range m.clients {
			c = cl
		}
		return c != nil
	})
	return c
}

// CONTRACT.md §6.13: "Errors always, warnings with include_warnings"; the header says `problem` when warnings are among
// them; the line format `<path>:<line>:<col> <severity> <source>: <message>`, the source and its space left out when
// the server gives none.
// README.md "Language servers": warnings only with include_warnings.
func TestContract613ErrorsAlwaysWarningsWhenIncluded(t *testing.T) {
	t.Parallel()
	text := "package a\nvar a = 1 // BAD a\nvar b = 1 // WARN b\nvar c = 1 // INFO c\nvar d = 1 // HINT d\nvar e = 1 // BAD NOSRC\n"
	h := c613Manager(t, "", nil)
	want := "LSP (fake613): 2 new errors in a.go after this change:\n" +
		"a.go:2:14 error fake613: BAD a\na.go:6:14 error: BAD NOSRC"
	if got := h.change("", text); got != want {
		t.Fatalf("without include_warnings: got %q\nwant %q", got, want)
	}
	h = c613Manager(t, "", func(o *Options, _ *Server) { o.IncludeWarnings = true })
	want = "LSP (fake613): 3 new problems in a.go after this change:\n" +
		"a.go:2:14 error fake613: BAD a\na.go:3:14 warning fake613: WARN b\na.go:6:14 error: BAD NOSRC"
	if got := h.change("", text); got != want {
		t.Fatalf("with include_warnings: got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: "at most max_diagnostics_per_file per file and 40 in all", and when cut `… and <n> more in <path>
// (the lsp tool's diagnostics action lists a file's problems)`; ` (<n> other<s> there before not repeated)` before the
// colon; the severities `error`, `warning`, `info`, `hint`; the message on one line, cut at 500 bytes.
// README.md "Language servers": at most max_diagnostics_per_file (10) per file and 40 in all.
func TestContract613CapsCutLineAndText(t *testing.T) {
	t.Parallel()
	if DefaultMaxPerFile != 10 || DefaultMaxTotal != 40 {
		t.Fatalf("defaults %d per file, %d in all", DefaultMaxPerFile, DefaultMaxTotal)
	}
	m := New(Options{Config: Config{Enabled: true}})
	var reports []fileReport
	for f := range 5 {
		r := fileReport{server: "s", path: fmt.Sprintf("f%d.go", f), old: f}
		for i := range 12 {
			r.items = append(r.items, Diagnostic{Path: r.path, Line: i + 1, Col: 1, Severity: "error", Source: "x", Message: "m"})
		}
		reports = append(reports, r)
	}
	got := m.render(reports)
	if n := strings.Count(got, " error x: m"); n != 40 {
		t.Errorf("%d problems listed, want 40 in all", n)
	}
	for f := range 5 {
		p := fmt.Sprintf("f%d.go", f)
		if n := strings.Count(got, "\n"+p+":"); f < 4 && n != 10 || f == 4 && n != 0 {
			t.Errorf("%s: %d listed", p, n)
		}
		rest := 2
		if f == 4 {
			rest = 12
		}
		if cut := fmt.Sprintf("\n… and %d more in %s (the lsp tool's diagnostics action lists a file's problems)", rest, p); !strings.Contains(got, cut) {
			t.Errorf("no cut line %q", cut)
		}
	}
	for _, head := range []string{
		"LSP (s): 12 new errors in f0.go after this change:\n",
		"LSP (s): 12 new errors in f1.go after this change (1 other there before not repeated):\n",
		"LSP (s): 12 new errors in f2.go after this change (2 others there before not repeated):\n",
	} {
		if !strings.Contains(got, head) {
			t.Errorf("no header %q in\n%s", head, got)
		}
	}
	m.opts.MaxPerFile = 3
	if got := m.render(reports[:1]); strings.Count(got, "\nf0.go:") != 3 || !strings.Contains(got, "… and 9 more in f0.go") {
		t.Errorf("max_diagnostics_per_file 3:\n%s", got)
	}
	for sev, name := range map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"} {
		if got := convert(protocol.Diagnostic{Severity: sev, Message: "m"}, "a.go", "x", utf16).String(); got != "a.go:1:1 "+name+": m" {
			t.Errorf("severity %d: %q", sev, got)
		}
	}
	long := "first\nsecond  " + strings.Repeat("é", 400)
	d := convert(protocol.Diagnostic{Severity: 1, Source: "s", Message: long}, "a.go", "x", utf16)
	if strings.Contains(d.Message, "\n") || !strings.HasPrefix(d.Message, "first second éé") ||
		!strings.HasSuffix(d.Message, "…") || len(strings.TrimSuffix(d.Message, "…")) > 500 {
		t.Errorf("message %q (%d bytes)", d.Message, len(d.Message))
	}
}

// CONTRACT.md §6.13: "Nothing new and nothing wrong: nothing is added."
func TestContract613NothingNewAddsNothing(t *testing.T) {
	t.Parallel()
	h := c613Manager(t, "", nil)
	v1 := "package a\n\nvar x = 1 // BAD x\n"
	if got := h.change("", "package a\n"); got != "" {
		t.Fatalf("a clean file: %q", got)
	}
	h.change("package a\n", v1)
	if got := h.change(v1, "package a\n\n// moved\nvar x = 1 // BAD x\n"); got != "" {
		t.Fatalf("an old problem moved: %q", got)
	}
	if got := h.change("", "package a\n"); got != "" {
		t.Fatalf("the problem fixed: %q", got)
	}
}

// CONTRACT.md §6.13: "After a Bash or Run call the files are checked in the background; the report reaches the model as
// a runtime notice (CONTRACT.md §9.2) starting `Files a command changed were checked by their language servers:`", waiting at
// most what the caller allows; what is not ready yet comes with a later call.
// README.md "Language servers": files a Bash or Run call changed are checked too and the findings reach the model as a runtime notice.
func TestContract613CommandChangesAreCheckedInTheBackground(t *testing.T) {
	t.Parallel()
	h := c613Manager(t, "", nil)
	if err := os.WriteFile(h.path("a.go"), []byte("package a\nvar x = 1 // BAD x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.m.ChangedOnDisk([]string{h.path("a.go")})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want := "Files a command changed were checked by their language servers:\n" +
		"LSP (fake613): 1 new error in a.go after this change:\na.go:2:14 error fake613: BAD x"
	if got := h.m.Notices(ctx); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := h.m.Notices(ctx); got != "" {
		t.Fatalf("reported twice: %q", got)
	}

	s := c613Manager(t, "silent", func(o *Options, _ *Server) { o.Wait = 2 * time.Second })
	if err := os.WriteFile(s.path("a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.m.ChangedOnDisk([]string{s.path("a.go")})
	short, cancelShort := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancelShort()
	start := time.Now()
	if got := s.m.Notices(short); got != "" || time.Since(start) > time.Second {
		t.Fatalf("a check still running: %q after %v", got, time.Since(start))
	}
	want = "Files a command changed were checked by their language servers:\n" +
		"LSP: no diagnostics from fake613 (it did not report within 2s)"
	if got := s.m.Notices(ctx); got != want {
		t.Fatalf("later: got %q\nwant %q", got, want)
	}
}

// CONTRACT.md §6.13: a server that stopped reading its input says `it stopped reading its input`, "and it is killed".
func TestContract613StuckServerIsKilled(t *testing.T) {
	t.Parallel()
	m, ws := fakeManager(t, "stuck", 500*time.Millisecond)
	path := filepath.Join(ws, "a.go")
	m.Changed(context.Background(), []Change{{Path: path, After: []byte("package a\n")}})
	got := m.Changed(context.Background(), []Change{{Path: path, After: []byte("package a\n" + strings.Repeat("x", 2<<20))}})
	if !strings.HasPrefix(got, "LSP: no diagnostics from fake (") || !strings.Contains(got, "it stopped reading its input") {
		t.Fatalf("got %q", got)
	}
	c := waitClient(t, m)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck server was not killed")
	}
}
