package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a misbehaving language server: with
// CODEWHALE_FAKE_LSP set it speaks LSP on stdio and misbehaves as the
// variable says. The real-behaviour tests use real servers (gopls_test.go);
// this peer exists only to misbehave in ways no real server does on
// demand.
func TestMain(m *testing.M) {
	if mode := os.Getenv("CODEWHALE_FAKE_LSP"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeManager is a manager whose one server ("fake", for .go files) is this
// binary in mode.
func fakeManager(t *testing.T, mode string, wait time.Duration) (*Manager, string) {
	t.Helper()
	ws := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := Server{Name: "fake", Command: exe, Languages: []string{"go"}, Env: []string{"CODEWHALE_FAKE_LSP=" + mode}}
	m := New(Options{Config: Config{Enabled: true, Wait: wait, Servers: []Server{srv}}, Workspace: ws,
		LookPath: exec.LookPath, InitTimeout: 30 * time.Second, Grace: time.Second})
	t.Cleanup(m.Close)
	return m, ws
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

func fakeServer(mode string) {
	in := bufio.NewReader(os.Stdin)
	answered := 0        // responses to the fake's own requests
	var pending *fakeMsg // noparams: a document to report on once both are answered
	for {
		msg, err := fakeRead(in)
		if err != nil {
			return
		}
		switch {
		case msg.Method == "" && len(msg.ID) > 0:
			if answered++; answered == 2 && pending != nil {
				fakeDocument(mode, *pending, answered)
			}
		case mode == "noparams" && answered < 2 && msg.Method == "textDocument/didOpen":
			pending = &msg
		case msg.Method == "initialize":
			if mode == "hang" {
				continue
			}
			if mode == "garbage" {
				fmt.Print("this is not LSP\r\n\r\n")
				continue
			}
			caps := map[string]any{"textDocumentSync": 1}
			if mode == "pull" {
				caps["diagnosticProvider"] = map[string]any{"interFileDependencies": false, "workspaceDiagnostics": false}
			}
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": caps}})
		case msg.Method == "textDocument/diagnostic": // pull: answered, never published
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"kind": "full",
				"items": []any{map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 8},
					"end": map[string]int{"line": 0, "character": 9}}, "severity": 1, "source": "fake", "message": "pulled"}}}})
		case msg.Method == "initialized" && mode == "noparams":
			// Requests and a notification without params: powernap's
			// router dereferences them (ARCHITECTURE.md §7).
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": 76, "method": "workspace/configuration"})
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "workspace/workspaceFolders"})
			fakeWrite(map[string]any{"jsonrpc": "2.0", "method": "$/ping"})
		case msg.Method == "textDocument/didOpen" || msg.Method == "textDocument/didChange":
			fakeDocument(mode, msg, answered)
		case msg.Method == "shutdown":
			fakeWrite(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case msg.Method == "exit":
			return
		}
	}
}

// fakeDocument misbehaves on a document sync, or reports one error in it.
func fakeDocument(mode string, msg fakeMsg, answered int) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fake: panic: something broke")
		os.Exit(3)
	case "stuck":
		time.Sleep(time.Hour) // stops reading its input
	case "huge":
		fmt.Printf("Content-Length: %d\r\n\r\n", 1<<30)
		return
	case "parts": // unversioned, in two parts as typescript-language-server sends them
		fakePublish(p.TextDocument.URI, 0, 0, "")
		time.Sleep(200 * time.Millisecond) // the type check taking its time
		fakePublish(p.TextDocument.URI, 0, 1, "bad (second part)")
		return
	}
	if mode == "pull" {
		return
	}
	n := 1
	if mode == "flood" {
		n = 5000
		for i := range 3000 { // and files nobody asked about
			fakePublish(fmt.Sprintf("file:///nowhere/%d.go", i), 0, 1, "bad")
		}
	}
	fakePublish(p.TextDocument.URI, p.TextDocument.Version, n, fmt.Sprintf("bad (%d answers)", answered))
}

func fakePublish(uri string, version, n int, message string) {
	diags := make([]map[string]any, n)
	for i := range diags {
		diags[i] = map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0},
			"end": map[string]int{"line": 0, "character": 1}}, "severity": 1, "source": "fake", "message": message}
	}
	fakeWrite(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
		"params": map[string]any{"uri": uri, "version": version, "diagnostics": diags}})
}

func fakeRead(in *bufio.Reader) (fakeMsg, error) {
	n := 0
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return fakeMsg{}, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(in, body); err != nil {
		return fakeMsg{}, err
	}
	var m fakeMsg
	err := json.Unmarshal(body, &m)
	return m, err
}

func fakeWrite(v any) {
	data, _ := json.Marshal(v)
	fmt.Printf("Content-Length: %d\r\n\r\n%s", len(data), data)
}
