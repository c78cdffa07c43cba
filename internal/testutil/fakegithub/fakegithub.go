// Package fakegithub is a local HTTPS server speaking GitHub Enterprise's
// REST API (under /api/v3) from saved real-shaped responses, for tests that
// run the real gh binary against it: Env points gh at the server (its
// certificate trusted through SSL_CERT_FILE, GH_HOST its address, an
// enterprise token, a private config dir).
package fakegithub

import (
	"embed"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

//go:embed testdata
var fixtures embed.FS

// Token is the token the server accepts.
const Token = "test-token"

// Server is a running fake.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []string
	bodies []string
	// Fail maps "METHOD /path" to a status to answer with.
	Fail map[string]int
}

// New starts a server closed when t ends.
func New(t testing.TB) *Server {
	s := &Server{Fail: map[string]int{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Host is the server's host:port, as GH_HOST wants it.
func (s *Server) Host() string { return strings.TrimPrefix(s.URL, "https://") }

// Env is the environment that points gh at the server with token.
func (s *Server) Env(t testing.TB, token string) []string {
	t.Helper()
	dir := t.TempDir()
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"SSL_CERT_FILE=" + cert, "GH_HOST=" + s.Host(), "GH_CONFIG_DIR=" + filepath.Join(dir, "gh"),
		"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "GH_TOKEN=", "GITHUB_TOKEN=", "GH_ENTERPRISE_TOKEN=" + token}
}

// Calls returns "METHOD /path?query" for every request so far.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// LastBody is the body of the latest request.
func (s *Server) LastBody() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		return ""
	}
	return s.bodies[len(s.bodies)-1]
}

func file(name string) []byte {
	b, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := strings.TrimPrefix(r.URL.Path, "/api/v3")
	key := r.Method + " " + path
	s.mu.Lock()
	s.calls = append(s.calls, key+"?"+r.URL.RawQuery)
	s.bodies = append(s.bodies, string(body))
	status := s.Fail[key]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if r.Header.Get("Authorization") != "token "+Token {
		w.WriteHeader(401)
		w.Write([]byte(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`))
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		w.Write([]byte(`{"message":"Server Error"}`))
		return
	}
	switch key {
	case "GET /repos/octo/widgets/issues/1":
		w.Write(file("issue_1.json"))
	case "GET /repos/octo/widgets/issues/1/comments":
		if r.URL.Query().Get("page") == "2" {
			w.Write(file("comments_1_page2.json"))
			return
		}
		w.Header().Set("Link", `<https://`+r.Host+`/api/v3/repos/octo/widgets/issues/1/comments?per_page=100&page=2>; rel="next"`)
		w.Write(file("comments_1_page1.json"))
	case "GET /repos/octo/widgets/issues/2":
		w.Write(file("issue_2.json"))
	case "GET /repos/octo/widgets/issues/2/comments":
		w.Write([]byte("[]"))
	case "GET /repos/octo/widgets/issues/3":
		json.NewEncoder(w).Encode(map[string]any{"number": 3, "title": "Long thread", "state": "open",
			"user": map[string]string{"login": "a"}, "labels": []any{}, "html_url": "https://github.com/octo/widgets/issues/3",
			"body": strings.Repeat("A very long issue body line.\n", 4000)})
	case "GET /repos/octo/widgets/issues/3/comments":
		var cs []map[string]any
		for i := 0; i < 60; i++ {
			cs = append(cs, map[string]any{"user": map[string]string{"login": "c"}, "created_at": "2026-11-01T00:00:00Z",
				"body": "comment " + strings.Repeat("x", 3000)})
		}
		json.NewEncoder(w).Encode(cs)
	case "GET /repos/octo/widgets/pulls/2":
		if strings.Contains(r.Header.Get("Accept"), "diff") {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(file("pull_2.diff"))
			return
		}
		w.Write(file("pull_2.json"))
	case "GET /repos/octo/widgets/pulls/2/files":
		w.Write(file("files_2.json"))
	case "GET /repos/octo/widgets/commits/6dcb09b5b57875f334f61aebed695e2e4193db5e/check-runs":
		w.Write(file("checkruns.json"))
	case "GET /repos/octo/widgets/commits/6dcb09b5b57875f334f61aebed695e2e4193db5e/status":
		w.Write(file("status.json"))
	case "POST /repos/octo/widgets/issues/1/comments":
		w.WriteHeader(201)
		w.Write([]byte(`{"id":5009,"html_url":"https://github.com/octo/widgets/issues/1#issuecomment-5009","body":"x"}`))
	case "PATCH /repos/octo/widgets/issues/1":
		w.Write([]byte(`{"number":1,"state":"closed","state_reason":"completed"}`))
	default:
		w.WriteHeader(404)
		w.Write([]byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`))
	}
}
