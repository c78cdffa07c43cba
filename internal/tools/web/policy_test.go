package web

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestFetchPolicy(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("internal admin page"))
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	loop := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	cases := []struct {
		name     string
		policy   netpolicy.Policy
		url      string
		approval tools.Approval
		err      string
	}{
		// An httptest server is private: fetching it needs approval, which
		// the call helper stands in for (Execute runs only after approval).
		{"loopback literal needs approval", netpolicy.Policy{}, srv.URL, tools.Required, ""},
		{"public name resolving to loopback needs approval", netpolicy.Policy{Resolver: fakeResolver{"docs.example.test": loop}},
			"http://docs.example.test:" + port, tools.Required, ""},
		{"explicitly allowed loopback runs unasked", netpolicy.Policy{Allow: []string{"127.0.0.1"}}, srv.URL, tools.Auto, ""},
		{"deny list", netpolicy.Policy{Deny: []string{"127.0.0.1"}}, srv.URL, tools.Auto, "network policy denies 127.0.0.1 ([network] deny)"},
		{"default deny", netpolicy.Policy{Default: netpolicy.Deny}, srv.URL, tools.Auto, `[network] default = "deny"`},
		{"prompt asks even for allowed-looking hosts", netpolicy.Policy{Default: netpolicy.Prompt}, srv.URL, tools.Required, ""},
	}
	for _, c := range cases {
		p := c.policy
		res, approval, err := call(t, newTool(&p, SearchConfig{}), `{"action":"fetch","url":"`+c.url+`"}`)
		if approval != c.approval {
			t.Errorf("%s: approval %v, want %v", c.name, approval, c.approval)
		}
		switch {
		case c.err == "" && (err != nil || !strings.Contains(res.Content, "internal admin page")):
			t.Errorf("%s: %v %s", c.name, err, res.Content)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.err)
		}
	}
}

// DNS rebinding: the name looked public when approval was decided, and
// resolves to loopback when the connection is made. The connect-time check
// refuses it.
func TestFetchRefusesRebindingAtConnectTime(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("internal")) })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	flip := &flipResolver{first: netip.MustParseAddr("93.184.216.34"), then: netip.MustParseAddr("127.0.0.1")}
	tool := newTool(&netpolicy.Policy{Resolver: flip}, SearchConfig{})
	_, approval, err := call(t, tool, `{"action":"fetch","url":"http://rebind.example.test:`+port+`/"}`)
	if approval != tools.Auto {
		t.Fatalf("approval %v", approval)
	}
	if err == nil || !strings.Contains(err.Error(), "rebind.example.test resolved to 127.0.0.1 at connect time") {
		t.Fatalf("got %v", err)
	}
}

type flipResolver struct {
	first, then netip.Addr
	n           int
}

func (f *flipResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	f.n++
	if f.n == 1 {
		return []netip.Addr{f.first}, nil
	}
	return []netip.Addr{f.then}, nil
}

func TestAuditLogRecordsFetches(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	path := filepath.Join(t.TempDir(), "audit.log")
	p := loopbackAllowed()
	p.Audit = &netpolicy.AuditLog{Path: path}
	call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`/a?token=x"}`)
	p.Deny = []string{"127.0.0.1"}
	call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"`+srv.URL+`/b"}`)
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"decision":"allow","status":200`) || !strings.Contains(lines[1], `"decision":"deny"`) {
		t.Fatalf("audit:\n%s", data)
	}
}
