package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
)

// The tests below pin the sentences of CONTRACT.md §12.8 that no other test
// proves. The misbehaving peer is fake_test.go's (this test binary with
// CODEWHALE_FAKE_LSP set); the number of times a server is launched is
// counted through Options.Environ, which the manager calls once per start.

// c128 is a manager over one server with its launches counted.
type c128 struct {
	m        *Manager
	ws       string
	launches atomic.Int32
}

// c128Exe is this test binary, the fake server.
func c128Exe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// c128Canonical is a fresh temporary directory with symlinks resolved, as
// the session's workspace is.
func c128Canonical(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// c128Manager is a manager whose one server, "fake" for Go files, is srv
// (the fake in mode when srv has no command); tweak adjusts the options.
func c128Manager(t *testing.T, mode string, srv Server, tweak func(*Options)) *c128 {
	t.Helper()
	h := &c128{ws: c128Canonical(t)}
	if srv.Name == "" {
		srv.Name = "fake"
	}
	if srv.Command == "" {
		srv.Command = c128Exe(t)
	}
	if srv.Languages == nil && srv.Extensions == nil {
		srv.Languages = []string{"go"}
	}
	srv.Env = append(srv.Env, "CODEWHALE_FAKE_LSP="+mode)
	o := Options{Config: Config{Enabled: true, Wait: 10 * time.Second, Servers: []Server{srv}}, Workspace: h.ws,
		LookPath: exec.LookPath, InitTimeout: 30 * time.Second, Grace: time.Second,
		Environ: func(extra ...string) []string {
			h.launches.Add(1)
			return append(os.Environ(), extra...)
		}}
	if tweak != nil {
		tweak(&o)
	}
	h.m = New(o)
	t.Cleanup(h.m.Close)
	return h
}

func (h *c128) change(t *testing.T, name string) string {
	t.Helper()
	return h.m.Changed(context.Background(), []Change{{Path: filepath.Join(h.ws, name), After: []byte("package a\n")}})
}

// onlyClient is the manager's one running server.
func (h *c128) onlyClient(t *testing.T) *client {
	t.Helper()
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	if len(h.m.clients) != 1 {
		t.Fatalf("%d servers running, want 1", len(h.m.clients))
	}
	for _, c := range h.m.clients {
		return c
	}
	return nil
}

// c128Shell skips t without sh and the tools a wrapper script uses.
func c128Shell(t *testing.T, tools ...string) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		e2e.Missing(t, "sh is not installed")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			e2e.Missing(t, tool+" is not installed")
		}
	}
	return sh
}

// c128Gone reports whether pid no longer runs (gone, or a zombie nobody
// reaped: PID 1 of a container may not).
func c128Gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	if err := p.Signal(syscall.Signal(0)); err != nil {
		return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // alive, and no /proc to tell a zombie by
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z'
	}
	return false
}

func c128Eventually(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// CONTRACT.md §12.8: "Servers are the [lsp.servers.<name>] tables merged over the built-ins (gopls, rust-analyzer,
// pyright, typescript-language-server, clangd)": a user entry named like a built-in replaces only the fields it
// sets; other user entries come first; an entry of its own needs a command and files.
// README.md "Language servers": a built-in's name in [lsp.servers] changes the fields it sets and any other name is a server of its own.
func TestContract128ServersAreUserTablesMergedOverBuiltins(t *testing.T) {
	t.Parallel()
	names := func(ss []Server) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	def, err := Merge(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(def), []string{"gopls", "rust-analyzer", "pyright", "typescript-language-server", "clangd"}; !slices.Equal(got, want) {
		t.Fatalf("built-ins %v, want %v", got, want)
	}
	for _, s := range def {
		if !s.Builtin || s.Command == "" || len(s.RootMarkers) == 0 {
			t.Errorf("built-in %+v", s)
		}
	}
	merged, err := Merge([]Server{
		{Name: "zls", Command: "zls", Extensions: []string{".zig"}},
		{Name: "gopls", Args: []string{"-remote=auto"}},
		{Name: "clangd", Command: "/opt/clangd"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(merged), []string{"zls", "gopls", "clangd", "rust-analyzer", "pyright", "typescript-language-server"}; !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	g := merged[1]
	if g.Command != "gopls" || !slices.Equal(g.Args, []string{"-remote=auto"}) || !g.Builtin ||
		!slices.Equal(g.RootMarkers, []string{"go.work", "go.mod"}) || !slices.Equal(g.Languages, []string{"go"}) {
		t.Errorf("gopls with only args set: %+v", g)
	}
	if c := merged[2]; c.Command != "/opt/clangd" || c.Builtin || !slices.Equal(c.Languages, []string{"c", "cpp"}) {
		t.Errorf("clangd with a user command: %+v (a user command is the user's: never skipped as absent)", c)
	}
	if _, err := Merge([]Server{{Name: "zls", Extensions: []string{".zig"}}}); err == nil {
		t.Error("an entry of its own without a command was accepted")
	}
	if _, err := Merge([]Server{{Name: "zls", Command: "zls"}}); err == nil {
		t.Error("an entry of its own without languages or extensions was accepted")
	}
}

// CONTRACT.md §12.8: "a built-in is used only when its program is found" — an absent built-in is passed over silently,
// and nothing is started by finding the programs.
// README.md "Language servers": a built-in is used only when its program is on PATH.
func TestContract128BuiltinUsedOnlyWhenItsProgramIsFound(t *testing.T) {
	t.Parallel()
	servers, err := Merge(nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := c128Canonical(t)
	var looked []string
	m := New(Options{Config: Config{Enabled: true, Servers: servers}, Workspace: ws,
		LookPath: func(name string) (string, error) {
			looked = append(looked, name)
			if name == "clangd" {
				return "/nonexistent/clangd", nil
			}
			return "", exec.ErrNotFound
		}})
	defer m.Close()
	if got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}}); got != "" {
		t.Fatalf("an edit of a Go file without gopls reported %q", got)
	}
	if got := m.Server(filepath.Join(ws, "a.go")); got != "" {
		t.Errorf("a.go is routed to %q though gopls is absent", got)
	}
	if got := m.Server(filepath.Join(ws, "a.c")); got != "clangd" {
		t.Errorf("a.c is routed to %q, want clangd (found)", got)
	}
	if !slices.Contains(looked, "gopls") {
		t.Errorf("gopls was never looked for: %v", looked)
	}
	if st := m.Status(); len(st) != 0 {
		t.Errorf("routing started servers: %+v", st)
	}
}

// CONTRACT.md §12.8: "a file is a server's when its extension or its language id is listed, the first such server in
// order (user entries, then built-ins) answering".
func TestContract128FileGoesToFirstServerByExtensionOrLanguage(t *testing.T) {
	t.Parallel()
	servers, err := Merge([]Server{
		{Name: "zls", Command: "zls", Extensions: []string{".zig"}},
		{Name: "mypy-ls", Command: "mypy-ls", Languages: []string{"python"}},
		{Name: "golike", Command: "golike", Extensions: []string{".go"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := c128Canonical(t)
	m := New(Options{Config: Config{Enabled: true, Servers: servers}, Workspace: ws,
		LookPath: func(name string) (string, error) { return "/nonexistent/" + name, nil }})
	defer m.Close()
	for file, want := range map[string]string{
		"a.zig": "zls",     // by extension, a language no table names
		"a.py":  "mypy-ls", // by language id, before the built-in pyright
		"a.pyi": "mypy-ls", // another extension of the same language id
		"A.PY":  "mypy-ls", // extensions compare without case
		"a.go":  "golike",  // a user entry before the built-in gopls
		"a.rs":  "rust-analyzer",
		"a.cpp": "clangd",
		"a.txt": "",
		"zig":   "",
	} {
		if got := m.Server(filepath.Join(ws, file)); got != want {
			t.Errorf("%s is routed to %q, want %q", file, got, want)
		}
	}
	r, lang, ok := m.route(filepath.Join(ws, "a.zig"))
	if !ok || r.srv.Name != "zls" || lang != "zig" {
		t.Errorf("a.zig: %q as %q (%v)", r.srv.Name, lang, ok)
	}
	if r, lang, _ := m.route(filepath.Join(ws, "a.pyi")); r.srv.Name != "mypy-ls" || lang != "python" {
		t.Errorf("a.pyi: %q as %q", r.srv.Name, lang)
	}
}

// CONTRACT.md §12.8: "the root being the nearest directory at or above the file holding one of its root_markers, not
// above the workspace (else the workspace)".
// README.md "Language servers": the root is the nearest directory with a root marker, never above the workspace.
func TestContract128RootIsNearestMarkerNotAboveWorkspace(t *testing.T) {
	t.Parallel()
	parent := c128Canonical(t)
	ws := filepath.Join(parent, "ws")
	for _, p := range []string{"go.mod", "ws/a/go.mod", "ws/a/n/go.mod", "ws/a/b/c/x.go", "ws/d/e/x.go", "ws/a/n/x.go"} {
		p = filepath.Join(parent, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := New(Options{Workspace: ws})
	defer m.Close()
	srv := Server{RootMarkers: []string{"go.work", "go.mod"}}
	for file, want := range map[string]string{
		"a/b/c/x.go": "a",   // nearest above
		"a/x.go":     "a",   // at the file's directory
		"a/n/x.go":   "a/n", // the nearest of two
		"d/e/x.go":   ".",   // the go.mod above the workspace is not used
		"x.go":       ".",
	} {
		if got, want := m.root(srv, filepath.Join(ws, filepath.FromSlash(file))), filepath.Join(ws, want); got != want {
			t.Errorf("root of %s = %s, want %s", file, got, want)
		}
	}
	if got := m.root(Server{}, filepath.Join(ws, "a", "x.go")); got != ws {
		t.Errorf("without root markers: %s, want the workspace %s", got, ws)
	}
	ws2 := filepath.Join(parent, "ws", "a")
	m2 := New(Options{Workspace: ws2})
	defer m2.Close()
	if got := m2.root(srv, filepath.Join(ws2, "b", "c", "x.go")); got != ws2 {
		t.Errorf("a marker in the workspace itself: %s, want %s", got, ws2)
	}
}

// CONTRACT.md §12.8: "One server runs per (server, root)": files under one root share a process, another root gets its
// own.
// README.md "Language servers": one server per server and project root.
func TestContract128OneServerPerServerAndRoot(t *testing.T) {
	t.Parallel()
	h := c128Manager(t, "ok", Server{RootMarkers: []string{"go.mod"}}, nil)
	for _, p := range []string{"a/go.mod", "a/b/x.go", "a/y.go", "z.go"} {
		p = filepath.Join(h.ws, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/x.go", "a/y.go", "z.go", "w.go"} {
		if got := h.change(t, filepath.FromSlash(f)); !strings.Contains(got, "error fake: bad") {
			t.Fatalf("%s: %q", f, got)
		}
	}
	st := h.m.Status()
	if len(st) != 2 || st[0].Root != h.ws || st[0].Files != 2 || st[1].Root != filepath.Join(h.ws, "a") || st[1].Files != 2 {
		t.Fatalf("status %+v, want the workspace's server and a's, two files each", st)
	}
	if n := h.launches.Load(); n != 2 {
		t.Errorf("%d launches, want 2", n)
	}
}

// CONTRACT.md §12.8: "It starts on the first file of its language that is read, changed or asked about — never
// before": configuring, listing and routing start nothing; a read, an edit and a question each start it.
// README.md "Language servers": servers start on the first file of their language that is read or changed.
func TestContract128StartsOnFirstFileReadChangedOrAsked(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"read", "changed", "asked"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			h := c128Manager(t, "ok", Server{}, nil)
			path := filepath.Join(h.ws, "a.go")
			_ = h.m.Servers()
			_ = h.m.Server(path)
			_ = h.m.Missing(path)
			h.m.Opened(filepath.Join(h.ws, "notes.txt"), []byte("hi"))
			if n, st := h.launches.Load(), h.m.Status(); n != 0 || len(st) != 0 {
				t.Fatalf("before any Go file: %d launches, %+v", n, st)
			}
			text := []byte("package a\n")
			switch how {
			case "read":
				h.m.Opened(path, text)
				c128Eventually(t, 20*time.Second, "the read file open in a ready server", func() bool {
					st := h.m.Status()
					return len(st) == 1 && st[0].State == StateReady && st[0].Files == 1
				})
			case "changed":
				if got := h.change(t, "a.go"); !strings.Contains(got, "a.go:1:1 error fake: bad") {
					t.Fatalf("the edit reported %q", got)
				}
			case "asked":
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := h.m.Hover(ctx, Target{Path: path, Text: text, Line: 1, Col: 1})
				var un *Unsupported
				if !errors.As(err, &un) {
					t.Fatalf("hover: %v", err)
				}
			}
			if n := h.launches.Load(); n != 1 {
				t.Fatalf("%d launches after the first %s file, want 1", n, how)
			}
		})
	}
}

// CONTRACT.md §12.8: "with initialize (bounded by 30 s ...)" and shutdown's "killed after 2 s": the defaults, and a
// server that never answers initialize fails within the bound.
func TestContract128InitializeIsBounded(t *testing.T) {
	t.Parallel()
	if d := New(Options{}); d.opts.InitTimeout != 30*time.Second || d.opts.Grace != 2*time.Second {
		t.Fatalf("defaults: initialize %v, grace %v; want 30s and 2s", d.opts.InitTimeout, d.opts.Grace)
	}
	h := c128Manager(t, "hang", Server{}, func(o *Options) { o.InitTimeout = 300 * time.Millisecond })
	start := time.Now()
	got := h.change(t, "a.go")
	if want := "LSP: no diagnostics from fake (failed: it did not answer initialize within 300ms"; !strings.HasPrefix(got, want) {
		t.Fatalf("got %q, want %q…", got, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the bounded start took %v", d)
	}
	if st := h.m.Status(); len(st) != 1 || st[0].State != StateFailed {
		t.Errorf("status %+v", st)
	}
}

// CONTRACT.md §12.8: "its capabilities decide sync, pull or push diagnostics and which questions are asked".
func TestContract128CapabilitiesDecideSyncDiagnosticsAndQuestions(t *testing.T) {
	t.Parallel()
	read := func(js string) capabilities {
		var r initializeResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return r.capabilities()
	}
	if c := read(`{"capabilities":{"textDocumentSync":0}}`); c.openClose || c.change != protocol.None {
		t.Errorf("sync none: %+v", c)
	}
	if c := read(`{"capabilities":{"textDocumentSync":1}}`); !c.openClose || c.change != protocol.Full || c.save || c.pull {
		t.Errorf("sync full: %+v", c)
	}
	if c := read(`{"capabilities":{"textDocumentSync":{"openClose":false,"change":2,"save":{"includeText":true}}}}`); c.openClose ||
		c.change != protocol.Incremental || !c.save || !c.saveText {
		t.Errorf("sync options: %+v", c)
	}
	if c := read(`{"capabilities":{"diagnosticProvider":{"interFileDependencies":false}}}`); !c.pull {
		t.Errorf("diagnosticProvider: not pulled: %+v", c)
	}
	c := read(`{"capabilities":{"hoverProvider":true,"definitionProvider":false,"referencesProvider":{},"renameProvider":null}}`)
	if !c.hover || c.definition || !c.references || c.rename || c.pull {
		t.Errorf("providers: %+v", c)
	}
	// The fake offers no questions: each is refused from its initialize
	// answer, naming the server, rather than sent.
	h := c128Manager(t, "ok", Server{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tg := Target{Path: filepath.Join(h.ws, "a.go"), Text: []byte("package a\n"), Line: 1, Col: 9}
	_, errH := h.m.Hover(ctx, tg)
	_, errD := h.m.Definition(ctx, tg)
	_, errR := h.m.References(ctx, tg, true)
	for what, err := range map[string]error{"hover": errH, "definition": errD, "references": errR} {
		var un *Unsupported
		if !errors.As(err, &un) || un.Server != "fake" || un.What != what {
			t.Errorf("%s: %v, want fake does not offer %s", what, err, what)
		}
	}
}

// CONTRACT.md §12.8: "is shut down with the session (shutdown, exit ...)": a server that is ready is sent shutdown then
// exit when the manager closes.
// README.md "Language servers": servers stop with the session with shutdown, then exit.
func TestContract128ShutdownSendsShutdownThenExit(t *testing.T) {
	t.Parallel()
	sh := c128Shell(t, "tee")
	log := filepath.Join(t.TempDir(), "stdin.log")
	h := c128Manager(t, "ok", Server{Command: sh, Args: []string{"-c", `tee "$C128_LOG" | "$C128_EXE"`},
		Env: []string{"C128_LOG=" + log, "C128_EXE=" + c128Exe(t)}}, func(o *Options) { o.Grace = 500 * time.Millisecond })
	if got := h.change(t, "a.go"); !strings.Contains(got, "error fake: bad") {
		t.Fatalf("the edit: %q", got)
	}
	h.m.Close()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	shut, exit := strings.Index(s, `"method":"shutdown"`), strings.Index(s, `"method":"exit"`)
	if shut < 0 || exit < shut {
		t.Fatalf("the server was not sent shutdown then exit; it read:\n%s", s)
	}
}

// CONTRACT.md §12.8: "the process group killed after 2 s": a server that does not go after shutdown is killed with the
// programs it started, within the grace.
// README.md "Language servers": a server still there after 2 s is killed with its process group.
func TestContract128ProcessGroupKilledAfterGrace(t *testing.T) {
	t.Parallel()
	sh := c128Shell(t, "sleep")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	h := c128Manager(t, "stuck", Server{Command: sh,
		Args: []string{"-c", `sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$C128_PID"; exec "$C128_EXE"`},
		Env:  []string{"C128_PID=" + pidFile, "C128_EXE=" + c128Exe(t)}},
		func(o *Options) { o.Wait, o.Grace = 300*time.Millisecond, 500*time.Millisecond })
	if got := h.change(t, "a.go"); !strings.Contains(got, "did not report") {
		t.Fatalf("the edit: %q", got)
	}
	c := h.onlyClient(t)
	server := c.cmd.Process.Pid
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if c128Gone(child) || c128Gone(server) {
		t.Fatal("the server or its child is gone before Close")
	}
	start := time.Now()
	h.m.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a 500ms grace", d)
	}
	c128Eventually(t, 5*time.Second, "the server and the program it started killed", func() bool {
		return c128Gone(server) && c128Gone(child)
	})
}

// CONTRACT.md §12.8: "A server that exits after it was ready is started again on the next file, twice at most; ...
// until /lsp restart".
func TestContract128ExitedServerStartedAgainTwiceAtMost(t *testing.T) {
	t.Parallel()
	h := c128Manager(t, "crash", Server{}, nil)
	for i, want := range []int32{1, 2, 3, 3, 3} {
		if got := h.change(t, "a.go"); !strings.Contains(got, "exited: it exited: exit status 3") {
			t.Fatalf("edit %d: %q", i+1, got)
		}
		if n := h.launches.Load(); n != want {
			t.Fatalf("after edit %d: %d launches, want %d", i+1, n, want)
		}
	}
	if n := h.m.Restart("fake"); n != 1 {
		t.Fatalf("Restart stopped %d", n)
	}
	h.change(t, "a.go")
	if n := h.launches.Load(); n != 4 {
		t.Fatalf("after Restart: %d launches, want 4", n)
	}
}

// CONTRACT.md §12.8: "one that failed to start stays failed until /lsp restart": reads and edits do not start it
// again; Restart does.
func TestContract128FailedServerStaysFailedUntilRestart(t *testing.T) {
	t.Parallel()
	h := c128Manager(t, "garbage", Server{}, nil)
	for i := range 3 {
		if got := h.change(t, "a.go"); !strings.Contains(got, "LSP: no diagnostics from fake (failed: ") {
			t.Fatalf("edit %d: %q", i+1, got)
		}
		h.m.Opened(filepath.Join(h.ws, "b.go"), []byte("package a\n"))
	}
	if n := h.launches.Load(); n != 1 {
		t.Fatalf("%d launches of a server that failed to start, want 1", n)
	}
	if st := h.m.Status(); len(st) != 1 || st[0].State != StateFailed {
		t.Fatalf("status %+v", st)
	}
	if n := h.m.Restart(""); n != 1 {
		t.Fatalf("Restart stopped %d", n)
	}
	if got := h.change(t, "a.go"); !strings.Contains(got, "failed: ") {
		t.Fatalf("after Restart: %q", got)
	}
	if n := h.launches.Load(); n != 2 {
		t.Fatalf("after Restart: %d launches, want 2", n)
	}
}

// CONTRACT.md §12.8: "Programs are found [by binpath] and started with the environment Bash gets": the manager looks
// the program up with Options.LookPath only and starts it with Options.Environ's environment (the server's env
// added), nothing else of the agent's.
// README.md "Language servers": a server is started with the environment Bash gets.
func TestContract128ProgramFoundByLookPathAndStartedWithEnviron(t *testing.T) {
	t.Parallel()
	sh := c128Shell(t, "env")
	out := filepath.Join(t.TempDir(), "env.txt")
	var looked []string
	exe := c128Exe(t)
	srv := Server{Name: "fake", Command: "codewhale-c128-server", Args: []string{"-c", `env > "$C128_OUT"; exec "$C128_EXE"`},
		Languages: []string{"go"}, Env: []string{"C128_OUT=" + out, "C128_EXE=" + exe, "CODEWHALE_FAKE_LSP=ok"}}
	ws := c128Canonical(t)
	m := New(Options{Config: Config{Enabled: true, Wait: 20 * time.Second, Servers: []Server{srv}}, Workspace: ws,
		LookPath: func(name string) (string, error) { looked = append(looked, name); return sh, nil },
		Environ: func(extra ...string) []string {
			return append([]string{"PATH=" + os.Getenv("PATH"), "C128_BASH_ENV=yes"}, extra...)
		}})
	defer m.Close()
	if got := m.Changed(context.Background(), []Change{{Path: filepath.Join(ws, "a.go"), After: []byte("package a\n")}}); !strings.Contains(got, "error fake: bad") {
		t.Fatalf("the edit: %q", got)
	}
	if !slices.Equal(looked, []string{"codewhale-c128-server"}) {
		t.Errorf("looked up %v", looked)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	if env["C128_BASH_ENV"] != "yes" || env["C128_OUT"] != out || env["PATH"] != os.Getenv("PATH") {
		t.Errorf("the server's environment lacks Environ's or its own entries: %v", env)
	}
	for _, k := range []string{"HOME", "GOPATH", "GOROOT", "USER"} {
		if _, inAgent := os.LookupEnv(k); inAgent {
			if _, inServer := env[k]; inServer {
				t.Errorf("the agent's %s reached the server past Environ", k)
			}
		}
	}
}

// CONTRACT.md §12.8: "At most 100 documents stay open per server": the least recently used is closed.
func TestContract128AtMost100DocumentsOpenPerServer(t *testing.T) {
	t.Parallel()
	h := c128Manager(t, "ok", Server{}, nil)
	name := func(i int) string { return fmt.Sprintf("f%03d.go", i) }
	for i := range maxOpen + 1 {
		if got := h.change(t, name(i)); !strings.Contains(got, "error fake: bad") {
			t.Fatalf("%s: %q", name(i), got)
		}
	}
	if maxOpen != 100 {
		t.Fatalf("maxOpen = %d", maxOpen)
	}
	if st := h.m.Status(); len(st) != 1 || st[0].Files != 100 {
		t.Fatalf("status %+v, want one server with 100 files open", st)
	}
	c := h.onlyClient(t)
	if _, open := c.text(protocol.URIFromPath(filepath.Join(h.ws, name(0)))); open {
		t.Error("the least recently used document is still open")
	}
	for _, i := range []int{1, maxOpen} {
		if _, open := c.text(protocol.URIFromPath(filepath.Join(h.ws, name(i)))); !open {
			t.Errorf("%s was closed", name(i))
		}
	}
}

// CONTRACT.md §12.8: "a message over 16 MiB stops the server": 16 MiB is read, one byte more is refused, and the
// server that sends it is no longer ready.
func TestContract128MessageOver16MiBStopsServer(t *testing.T) {
	t.Parallel()
	var fe *floodError
	over := bufio.NewReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n", 16<<20+1)))
	if err := readObject(over, new(any)); !errors.As(err, &fe) || fe.size != 16<<20+1 {
		t.Errorf("16 MiB + 1: %v, want the flood error", err)
	}
	head := `{"jsonrpc":"2.0","method":"x","params":"`
	body := head + strings.Repeat("a", 16<<20-len(head)-2) + `"}`
	at := bufio.NewReader(strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
	var v map[string]any
	if err := readObject(at, &v); err != nil || v["method"] != "x" {
		t.Errorf("exactly 16 MiB: %v", err)
	}
	h := c128Manager(t, "huge", Server{}, nil)
	if got := h.change(t, "a.go"); !strings.Contains(got, "over the 16777216-byte bound") {
		t.Fatalf("the edit: %q", got)
	}
	if st := h.m.Status(); len(st) != 1 || st[0].State != StateExited {
		t.Fatalf("status %+v, want the server exited", st)
	}
}

// lspGoroutine matches a stack running the manager's code, jsonrpc2's or
// os/exec's (a server's wait and stderr copy).
var lspGoroutine = regexp.MustCompile(`codewhale/internal/lsp\.(\(|[a-z])|sourcegraph/jsonrpc2|os/exec\.`)

// c128Leaks are those goroutines, but for the one asking.
func c128Leaks() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if lspGoroutine.MatchString(g) && !strings.Contains(g, "lsp.c128Leaks(") {
			out = append(out, g)
		}
	}
	return out
}

// CONTRACT.md §12.8: "every goroutine ends in App.Close" (App.Close calls Manager.Close, internal/app/app.go): after a
// session of reads, edits, a restart, a crash and background checks, some still running when it closes, none of the
// manager's goroutines is left once Close returns. Not parallel: the other tests of the package wait in t.Parallel
// while it looks.
func TestContract128EveryGoroutineEndsInClose(t *testing.T) {
	if before := c128Leaks(); len(before) != 0 {
		t.Skipf("goroutines of the package already run: %d\n%s", len(before), strings.Join(before, "\n\n"))
	}
	ok := c128Manager(t, "ok", Server{}, nil)
	ok.m.Opened(filepath.Join(ok.ws, "r.go"), []byte("package a\n"))
	ok.change(t, "a.go")
	path := filepath.Join(ok.ws, "d.go")
	if err := os.WriteFile(path, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok.m.ChangedOnDisk([]string{path})
	ok.m.Restart("fake")
	ok.change(t, "b.go")
	crash := c128Manager(t, "crash", Server{}, nil)
	crash.change(t, "a.go")
	crash.change(t, "a.go") // started again: the old client shut down in the background
	stuck := c128Manager(t, "stuck", Server{}, func(o *Options) { o.Wait, o.Grace = 300*time.Millisecond, 300*time.Millisecond })
	stuck.change(t, "a.go")
	// Still at work when the session ends: a read and a command's change
	// waiting for a server that never finishes starting.
	hang := c128Manager(t, "hang", Server{}, nil)
	hpath := filepath.Join(hang.ws, "h.go")
	if err := os.WriteFile(hpath, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hang.m.Opened(hpath, []byte("package a\n"))
	hang.m.ChangedOnDisk([]string{hpath})
	if len(c128Leaks()) == 0 {
		t.Fatal("no goroutine was seen running, so the test shows nothing")
	}
	for _, h := range []*c128{ok, crash, stuck} {
		h.m.Close()
	}
	// Background work Close must wait for, however long it takes.
	var done atomic.Bool
	hang.m.spawn(func() { time.Sleep(300 * time.Millisecond); done.Store(true) })
	hang.m.Close()
	if !done.Load() {
		t.Error("Close returned before the background work it started ended")
	}
	// A goroutine that has just signalled its end may need a moment to be
	// gone; one still at work is not gone within it.
	for range 5 {
		if len(c128Leaks()) == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	left := c128Leaks()
	t.Fatalf("%d goroutines left after Close:\n%s", len(left), strings.Join(left, "\n\n"))
}

// CONTRACT.md §12.8: "every goroutine ends in App.Close" with `/lsp restart` running: the servers Restart is
// shutting down (on the caller's goroutine, taken from the map first) are waited for by a Close meanwhile — no
// server process and none of the manager's goroutines is left once Close returns. Not parallel, as
// TestContract128EveryGoroutineEndsInClose.
func TestContract128CloseWaitsForRestartsShutdowns(t *testing.T) {
	if before := c128Leaks(); len(before) != 0 {
		t.Skipf("goroutines of the package already run: %d\n%s", len(before), strings.Join(before, "\n\n"))
	}
	// A server that stops reading: its shutdown takes the whole grace.
	h := c128Manager(t, "stuck", Server{}, func(o *Options) { o.Wait, o.Grace = 300*time.Millisecond, 2*time.Second })
	if got := h.change(t, "a.go"); !strings.Contains(got, "did not report") {
		t.Fatalf("the edit: %q", got)
	}
	c := h.onlyClient(t)
	c.mu.Lock()
	pid := c.cmd.Process.Pid
	c.mu.Unlock()
	restarted := make(chan int, 1)
	go func() { restarted <- h.m.Restart("") }()
	c128Eventually(t, 5*time.Second, "Restart taking the server from the map", func() bool {
		h.m.mu.Lock()
		defer h.m.mu.Unlock()
		return len(h.m.clients) == 0
	})
	h.m.Close()
	if !c128Gone(pid) {
		t.Error("the server Restart was stopping still runs after Close returned")
	}
	var left []string
	for range 100 {
		if left = c128Leaks(); len(left) == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if len(left) != 0 {
		t.Errorf("%d goroutines left after Close:\n%s", len(left), strings.Join(left, "\n\n"))
	}
	if n := <-restarted; n != 1 {
		t.Errorf("Restart stopped %d, want 1", n)
	}
}

// CONTRACT.md §12.8: "for a file outside it (under a trusted root ...), not above the outermost trusted root holding
// it, or the filesystem root when none does (else the file's directory)": a file File reached under a trusted root
// (CONTRACT.md §5) gets the root its own markers give, searched no higher than that root, the trust list read afresh
// each time.
// README.md "Language servers": a file under a trusted root gets a root never above that trusted root.
func TestContract128RootOutsideWorkspaceBoundedByTrustedRoot(t *testing.T) {
	t.Parallel()
	parent := c128Canonical(t)
	at := func(p string) string { return filepath.Join(parent, filepath.FromSlash(p)) }
	for _, p := range []string{"go.mod", "ws/x.go", "t1/go.mod", "t1/inner/a/x.go", "t2/b/y.go", "else/c/z.go"} {
		if err := os.MkdirAll(filepath.Dir(at(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(at(p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trusted := []string{at("t1/inner"), at("t1"), at("t2") + string(filepath.Separator)}
	var mu sync.Mutex
	m := New(Options{Workspace: at("ws"), TrustedRoots: func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(trusted)
	}})
	defer m.Close()
	srv := Server{RootMarkers: []string{"go.work", "go.mod"}}
	for file, want := range map[string]string{
		"ws/x.go":         "ws",   // inside the workspace: the workspace bound
		"t1/inner/a/x.go": "t1",   // its marker under the outermost trusted root holding it
		"t1/go.mod":       "t1",   // a marker at the trusted root itself
		"t2/b/y.go":       "t2/b", // none in t2 (a root written with a separator): not the go.mod above it
		"else/c/z.go":     ".",    // under no trusted root: searched up to the filesystem root
	} {
		if got, want := m.root(srv, at(file)), at(want); got != want {
			t.Errorf("root of %s = %s, want %s", file, got, want)
		}
	}
	mu.Lock()
	trusted = append(trusted, at("else"))
	mu.Unlock()
	if got, want := m.root(srv, at("else/c/z.go")), at("else/c"); got != want {
		t.Errorf("after else was trusted: root of else/c/z.go = %s, want %s", got, want)
	}
	if got := New(Options{}).root(srv, "/z.go"); got != "/" {
		t.Errorf("a file at the filesystem root: %s", got)
	}
}

// CONTRACT.md §12.8 (what "no diagnostics (why)" says of a server that exited): a process that ended cleanly is
// described as "it exited: exit status 0", its state read while it is being reaped — race-free (-race, make race).
func TestContract128ExitStateReadWhileReaped(t *testing.T) {
	t.Parallel()
	c := &client{stderr: &tail{max: 4096}, exited: make(chan struct{})}
	cmd := exec.Command(c128Exe(t)) // the fake, whose input ends at once: it exits 0
	cmd.Env = append(os.Environ(), "CODEWHALE_FAKE_LSP=ok")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.cmd = cmd
	c.mu.Unlock()
	c.wg.Add(1)
	go c.wait(cmd)
	describe := func() string {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.describe(nil)
	}
	for reaped := false; !reaped; {
		select {
		case <-c.exited:
			reaped = true
		default:
			if got := describe(); got != "it closed its connection" && got != "it exited: exit status 0" {
				t.Fatalf("while reaped: %q", got)
			}
		}
	}
	if got := describe(); got != "it exited: exit status 0" {
		t.Errorf("once reaped: %q, want it exited: exit status 0", got)
	}
	c.wg.Wait()
}
