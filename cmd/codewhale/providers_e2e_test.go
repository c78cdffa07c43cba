package main

import (
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

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// connectLog is a forward proxy that records the host of every CONNECT
// and refuses it: what a logging corporate proxy sees of a TLS request.
type connectLog struct {
	*httptest.Server
	mu    sync.Mutex
	hosts []string
}

func newConnectLog(t *testing.T) *connectLog {
	p := &connectLog{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hosts = append(p.hosts, r.Method+" "+r.Host)
		p.mu.Unlock()
		http.Error(w, "connectlog: refused", http.StatusForbidden)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *connectLog) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hosts...)
}

func authHeaders(reqs []*fakemodel.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Header.Get("Authorization"))
	}
	return out
}

// CONTRACT.md §10.3: each key goes only to its own provider's host. Two fake
// servers stand in for DeepSeek and OpenRouter (their base URLs moved to
// loopback in config.toml); a logging proxy stands in for the network.
func TestProviderKeysNeverCrossHosts(t *testing.T) {
	t.Parallel()
	const dk, ok = "sk-deepseek-e2e-0001", "sk-or-e2e-0002"
	deepseek := fakemodel.New(t)
	deepseek.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("from deepseek") })
	openrouter := fakemodel.New(t)
	openrouter.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Text("from openrouter") })
	proxy := newConnectLog(t)
	start := func(t *testing.T, withTables bool) *cli {
		c := newCLI(t, nil)
		c.env = append(c.env, "DEEPSEEK_API_KEY="+dk, "OPENROUTER_API_KEY="+ok, "HTTPS_PROXY="+proxy.URL, "NO_PROXY=")
		if withTables {
			c.config("[retry]\nmax_retries = 0\n[providers.deepseek]\nbase_url = \"" + deepseek.URL + "/v1\"\n" +
				"[providers.openrouter]\nbase_url = \"" + openrouter.URL + "/v1\"\n")
		} else {
			c.config("[retry]\nmax_retries = 0\n")
		}
		return c
	}

	t.Run("openrouter's key to openrouter's host only", func(t *testing.T) {
		c := start(t, true)
		out, errOut, code := c.run("--provider", "openrouter", "exec", "hi")
		if code != 0 || !strings.Contains(out, "from openrouter") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		for _, h := range authHeaders(openrouter.Requests()) {
			if h != "Bearer "+ok {
				t.Errorf("openrouter's server got Authorization %q", h)
			}
		}
		if n := len(deepseek.Requests()); n != 0 {
			t.Errorf("DeepSeek's server got %d request(s) for an OpenRouter run", n)
		}
	})
	t.Run("the openrouter preset goes to openrouter.ai, never api.deepseek.com", func(t *testing.T) {
		c := start(t, false)
		_, errOut, code := c.run("--provider", "openrouter", "exec", "hi")
		seen := proxy.seen()
		if code == 0 || len(seen) == 0 {
			t.Fatalf("exit %d, proxy saw %v; stderr %s", code, seen, errOut)
		}
		for _, h := range seen {
			if h != "CONNECT openrouter.ai:443" {
				t.Errorf("an OpenRouter run connected to %q", h)
			}
		}
	})
	misconfigs := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"a provider with no preset and no base URL", nil, []string{"--provider", "nosuch", "exec", "hi"},
			`provider "nosuch" has no base URL`},
		{"a flag base URL with the preset's key", nil,
			[]string{"--provider", "openrouter", "--base-url", "https://elsewhere.example.com/v1", "exec", "hi"},
			"refusing to send the openrouter API key (OPENROUTER_API_KEY) to elsewhere.example.com"},
		{"an env base URL with DeepSeek's key", []string{"CODEWHALE_BASE_URL=https://elsewhere.example.com/v1"},
			[]string{"exec", "hi"}, "refusing to send the deepseek API key (DEEPSEEK_API_KEY) to elsewhere.example.com"},
	}
	for _, mc := range misconfigs {
		t.Run(mc.name, func(t *testing.T) {
			before, ds, or := len(proxy.seen()), len(deepseek.Requests()), len(openrouter.Requests())
			c := start(t, false)
			c.env = append(c.env, mc.env...)
			_, errOut, code := c.run(mc.args...)
			if code != 1 || !strings.Contains(errOut, mc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, mc.want)
			}
			if len(proxy.seen()) != before || len(deepseek.Requests()) != ds || len(openrouter.Requests()) != or {
				t.Errorf("a refused configuration sent something: proxy %v", proxy.seen()[before:])
			}
		})
	}
	t.Run("a loopback override gets the request without the key", func(t *testing.T) {
		c := start(t, false)
		c.env = append(c.env, "CODEWHALE_BASE_URL="+openrouter.URL)
		n := len(openrouter.Requests())
		if out, errOut, code := c.run("exec", "hi"); code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		for _, h := range authHeaders(openrouter.Requests()[n:]) {
			if h != "" {
				t.Errorf("DeepSeek's key went to a loopback server named by CODEWHALE_BASE_URL: %q", h)
			}
		}
	})
}

// doctor shows the host each key goes to and the proxy in force
// (CONTRACT.md §10.3).
func TestDoctorShowsKeyHostsAndProxy(t *testing.T) {
	t.Parallel()
	proxy := newConnectLog(t)
	c := newCLI(t, nil)
	c.env = append(c.env, "DEEPSEEK_API_KEY=sk-deepseek-doctor", "OPENROUTER_API_KEY=sk-or-doctor",
		"HTTPS_PROXY=http://user:secret@"+strings.TrimPrefix(proxy.URL, "http://"), "NO_PROXY=localhost")
	out, _, _ := c.run("--provider", "openrouter", "doctor", "--json")
	var r struct {
		Checks []struct {
			Name, Detail string
			Data         map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := map[string]string{}
	for _, ch := range r.Checks {
		got[ch.Name] = ch.Detail
	}
	want := map[string]string{
		"api key":      "from OPENROUTER_API_KEY → openrouter.ai",
		"key deepseek": "from DEEPSEEK_API_KEY → api.deepseek.com",
		"proxy":        "openrouter.ai → http://user:xxxxx@" + strings.TrimPrefix(proxy.URL, "http://"),
	}
	for name, w := range want {
		if !strings.HasPrefix(got[name], w) {
			t.Errorf("%s: %q, want it to start %q", name, got[name], w)
		}
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "sk-") {
		t.Errorf("doctor printed a credential: %s", out)
	}
}

// SSL_CERT_FILE is the trust store of the provider client: a server with a
// certificate from it is reached over https, and without it refused.
func TestProviderTrustsSSLCertFile(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"over tls"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	pemFile := filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(pemFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--provider", "tls-gw", "--base-url", srv.URL + "/v1", "--model", "m", "exec", "hi"}
	c := newCLI(t, nil)
	c.env = append(c.env, "TLS_GW_API_KEY=k")
	if _, errOut, code := c.run(args...); code == 0 || !strings.Contains(errOut, "certificate") {
		t.Errorf("without SSL_CERT_FILE: exit %d %s", code, errOut)
	}
	c.env = append(c.env, "SSL_CERT_FILE="+pemFile)
	if out, errOut, code := c.run(args...); code != 0 || !strings.Contains(out, "over tls") {
		t.Errorf("with SSL_CERT_FILE: exit %d %s%s", code, out, errOut)
	}
}

// A local server speaking Ollama's OpenAI-compatible API: `--provider
// ollama` needs no key, uses the server's first listed model, and
// `codewhale models` lists what its /models returns (cached for the TTL).
func TestOllamaPresetAgainstALocalServer(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("Olá."), fakemodel.Text("Again."), fakemodel.Text("As an agent."))
	srv.ServeModels("qwen3:8b", "llama3.2:3b")
	c := newCLI(t, nil)
	c.config("[providers.ollama]\nbase_url = \"" + srv.URL + "/v1\"\n")
	for _, args := range [][]string{{"tools", "--json"}, {"auth", "status"}} {
		if _, errOut, code := c.run(append([]string{"--provider", "ollama"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	if n := len(srv.ModelRequests()) + len(srv.Requests()); n != 0 {
		t.Fatalf("choosing the provider contacted the server %d times before any request", n)
	}
	out, errOut, code := c.run("--provider", "ollama", "exec", "hi")
	if code != 0 || strings.TrimSpace(out) != "Olá." {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	req := srv.Requests()[0]
	if req.Body["model"] != "qwen3:8b" || req.Header.Get("Authorization") != "" {
		t.Errorf("sent model %v with Authorization %q", req.Body["model"], req.Header.Get("Authorization"))
	}
	out, errOut, code = c.run("--provider", "ollama", "models")
	if code != 0 || !strings.Contains(out, "qwen3:8b") || !strings.Contains(out, "llama3.2:3b") ||
		!strings.Contains(out, "? 128k assumed") || !strings.Contains(out, "0 / 0") {
		t.Errorf("models: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := c.run("--provider", "ollama", "exec", "again"); code != 0 {
		t.Errorf("second exec: exit %d", code)
	}
	if n := len(srv.ModelRequests()); n != 1 {
		t.Errorf("the model list was fetched %d times in its TTL, want once", n)
	}
	out, errOut, code = c.run("--provider", "ollama", "exec", "--auto", "hi agent")
	if code != 0 || !strings.Contains(out, "As an agent.") || srv.Requests()[2].Body["model"] != "qwen3:8b" {
		t.Errorf("agent exec: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = c.run("--provider", "ollama", "models", "--json", "--refresh")
	var list struct {
		Provider string
		Models   []struct {
			ID      string
			Assumed []string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || list.Provider != "ollama" || len(list.Models) != 2 ||
		list.Models[0].ID != "qwen3:8b" || len(list.Models[0].Assumed) == 0 || len(srv.ModelRequests()) != 2 {
		t.Errorf("models --json --refresh: exit %d %s (list requests %d)", code, out, len(srv.ModelRequests()))
	}
}

// A server that lists no models and a route that names none: a message
// that says what to do, and no chat request.
func TestLocalServerWithoutModels(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.ServeModels()
	c := newCLI(t, nil)
	c.config("[providers.vllm]\nbase_url = \"" + srv.URL + "/v1\"\n")
	_, errOut, code := c.run("--provider", "vllm", "exec", "hi")
	if code != 1 || !strings.Contains(errOut, "names no model to use") || !strings.Contains(errOut, "--model") ||
		len(srv.Requests()) != 0 {
		t.Errorf("exit %d %s (%d chat requests)", code, errOut, len(srv.Requests()))
	}
}
