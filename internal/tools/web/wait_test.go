package web

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

func TestWaitForAServerThatStartsLate(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens yet
	started := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond) // the dev server takes a while to come up
		l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			close(started)
			return
		}
		close(started)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })}
		t.Cleanup(func() { srv.Close() })
		srv.Serve(l2)
	}()
	res, _, err := call(t, newTool(nil, SearchConfig{}), `{"action":"wait","port":`+strconv.Itoa(port)+`,"poll_interval_ms":50,"timeout_ms":5000}`)
	<-started
	if err != nil || !res.Success || !strings.Contains(res.Content, `"ready":true`) {
		t.Fatalf("%v %s", err, res.Content)
	}
	res, _, err = call(t, newTool(nil, SearchConfig{}), `{"action":"wait","url":"http://localhost:`+strconv.Itoa(port)+`/healthz","timeout_ms":2000}`)
	if err != nil || !res.Success || !strings.Contains(res.Content, `"detail":"HTTP 204"`) {
		t.Fatalf("health url: %v %s", err, res.Content)
	}
}

func TestWaitTimesOut(t *testing.T) {
	t.Parallel()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	start := time.Now()
	res, _, err := call(t, newTool(nil, SearchConfig{}), `{"action":"wait","port":`+strconv.Itoa(port)+`,"timeout_ms":400,"poll_interval_ms":100}`)
	if err != nil || res.Success || !strings.Contains(res.Content, `"ready":false`) || !strings.Contains(res.Content, "connection refused") {
		t.Fatalf("%v %+v", err, res)
	}
	if d := time.Since(start); d < 350*time.Millisecond || d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

// README.md "Web and GitHub": wait polls a loopback port or health URL and never reaches anything else.
func TestWaitIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	tool := newTool(nil, SearchConfig{})
	for in, want := range map[string]string{
		`{"action":"wait","host":"10.0.0.5","port":80}`:       "10.0.0.5 is not loopback",
		`{"action":"wait","url":"http://example.com/health"}`: "example.com is not loopback",
		`{"action":"wait"}`:                          "wait needs `port`",
		`{"action":"wait","port":70000}`:             "port must be between 1 and 65535",
		`{"action":"wait","url":"ftp://127.0.0.1/"}`: "only http:// and https:// URLs are supported",
	} {
		_, _, err := call(t, tool, in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

// A wait goes through the network policy (CONTRACT.md §6.10): a denied
// host is refused before anything is reached, a port under the prompt
// default needs approval, and a health url — an HTTP request to a path the
// model chose — needs a person's explicit approval, as a fetch of a
// loopback address does.
func TestWaitFollowsTheNetworkPolicy(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++; w.WriteHeader(204) })}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	deny := &netpolicy.Policy{Default: netpolicy.Allow, Deny: []string{"127.0.0.1", "localhost"}}
	for _, in := range []string{
		`{"action":"wait","port":` + port + `,"timeout_ms":500}`,
		`{"action":"wait","url":"http://127.0.0.1:` + port + `/admin/shutdown?confirm=1","timeout_ms":500}`,
		`{"action":"wait","url":"http://[::ffff:127.0.0.1]:` + port + `/","timeout_ms":500}`,
	} {
		if _, _, err := call(t, newTool(deny, SearchConfig{}), in); err == nil || !strings.Contains(err.Error(), "network policy denies") {
			t.Errorf("%s under a deny list: %v", in, err)
		}
	}
	if hits != 0 {
		t.Fatalf("the denied server was reached %d times", hits)
	}
	prompt := &netpolicy.Policy{Default: netpolicy.Prompt}
	if _, approval, _ := call(t, newTool(prompt, SearchConfig{}), `{"action":"wait","port":`+port+`,"timeout_ms":500}`); approval != tools.Required {
		t.Errorf("a port wait under default=prompt: approval %v, want Required", approval)
	}
	if _, approval, _ := call(t, newTool(nil, SearchConfig{}), `{"action":"wait","url":"http://127.0.0.1:`+port+`/healthz","timeout_ms":500}`); approval != tools.Explicit {
		t.Errorf("a health url wait: approval %v, want Explicit", approval)
	}
	if _, approval, _ := call(t, newTool(nil, SearchConfig{}), `{"action":"wait","port":`+port+`,"timeout_ms":500}`); approval != tools.Auto {
		t.Errorf("a port wait under the default policy: approval %v, want Auto", approval)
	}
}
