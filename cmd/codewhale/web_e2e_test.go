package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The model finds Web through tool_search, fetches a local page, and the
// page's Markdown (not its scripts or navigation) reaches the next request.
func TestExecFetchesAPageFoundThroughToolSearch(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<html><head><title>Release notes</title><script>var tracker = 1;</script></head>
<body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a></nav>
<main><h1>Release notes</h1><p>Version <strong>2.4</strong> adds <code>--dry-run</code>.</p></main></body></html>`))
	}))
	defer page.Close()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"fetch url"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "f", Name: "Web", Args: `{"action":"fetch","url":"` + page.URL + `/notes"}`}),
		fakemodel.Text("Version 2.4 adds --dry-run."))
	c := newCLI(t, srv)
	c.config("[retry]\ninitial_delay = 0.05\nmax_delay = 0.1\n[network]\nallow_private = [\"127.0.0.1\"]\n")
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "what changed in 2.4?")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, n := range reqs[0].ToolNames() {
		if n == "Web" {
			t.Fatal("Web was sent on the first request")
		}
	}
	if !reqs[1].HasToolResult(`"tool_name":"Web"`) || !strings.Contains(strings.Join(reqs[1].ToolNames(), ","), "Web") {
		t.Fatalf("tool_search did not load Web: %v", reqs[1].ToolNames())
	}
	if !reqs[2].HasToolResult(`# Release notes\n\nVersion **2.4** adds ` + "`--dry-run`") {
		t.Errorf("the page's Markdown did not reach the model: %s", reqs[2].Raw)
	}
	if reqs[2].HasToolResult("tracker") || reqs[2].HasToolResult("Pricing") {
		t.Error("scripts or navigation reached the model")
	}
}

// Without [network] allow_private, a loopback page needs an explicit
// approval: a headless run is refused and records approval_required.
func TestExecWebLoopbackNeedsApproval(t *testing.T) {
	t.Parallel()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("internal")) }))
	defer page.Close()
	srv := fakemodel.New(t,
		fakemodel.Tools(fakemodel.Call{ID: "f", Name: "Web", Args: `{"action":"fetch","url":"` + page.URL + `"}`}),
		fakemodel.Text("Could not fetch it."))
	c := newCLI(t, srv)
	out, _, _ := c.run("exec", "--output-format", "stream-json", "--max-turns", "3", "read the admin page")
	reqs := srv.Requests()
	if len(reqs) < 2 || !reqs[1].HasToolResult("needs explicit approval") || reqs[1].HasToolResult("internal") {
		t.Fatalf("the loopback fetch was not held for approval: %s\n%s", out, reqs[len(reqs)-1].Raw)
	}
	if !strings.Contains(out, "approval_required") {
		t.Errorf("approval_required not recorded: %s", out)
	}
}
