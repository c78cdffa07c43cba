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
		// An httptest server is private: fetching it needs an explicit
		// approval, which the call helper stands in for (Execute runs only
		// after approval).
		{"loopback literal needs approval", netpolicy.Policy{}, srv.URL, tools.Explicit, ""},
		{"public name resolving to loopback needs approval", netpolicy.Policy{Resolver: fakeResolver{"docs.example.test": loop}},
			"http://docs.example.test:" + port, tools.Explicit, ""},
		{"allow admits no private address", netpolicy.Policy{Allow: []string{"127.0.0.1", "*"}}, srv.URL, tools.Explicit, ""},
		{"allow_private runs unasked", netpolicy.Policy{AllowPrivate: []string{"127.0.0.1:" + port}}, srv.URL, tools.Auto, ""},
		{"allow_private by name", netpolicy.Policy{AllowPrivate: []string{"localhost:" + port}}, "http://localhost:" + port, tools.Auto, ""},
		{"allow_private for another port", netpolicy.Policy{AllowPrivate: []string{"127.0.0.1:1"}}, srv.URL, tools.Explicit, ""},
		{"deny list", netpolicy.Policy{Deny: []string{"127.0.0.1"}}, srv.URL, tools.Auto, "network policy denies 127.0.0.1 ([network] deny)"},
		{"default deny", netpolicy.Policy{Default: netpolicy.Deny}, srv.URL, tools.Auto, `[network] default = "deny"`},
		{"prompt asks even for allowed-looking hosts", netpolicy.Policy{Default: netpolicy.Prompt, AllowPrivate: []string{"127.0.0.1"}},
			srv.URL, tools.Required, ""},
		{"prompt and private is explicit", netpolicy.Policy{Default: netpolicy.Prompt}, srv.URL, tools.Explicit, ""},
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
// README.md "Web and GitHub": the address is judged again on the address actually dialled, so a name that changes its answer is refused.
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

// README.md "Web and GitHub": audit = true writes one JSON line per call to $CODEWHALE_HOME/audit.log.
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

// The private ranges a model must not reach unasked need an explicit
// approval — never an ordinary one, which --auto would give — and the card
// says what the address is.
// CONTRACT.md §6.10: a fetch of a loopback, link-local, metadata, private, CGNAT address or a name resolving to one is
// an explicit approval whose reason names the address and allow_private.
// README.md "Web and GitHub": private, loopback and link-local addresses need explicit approval of that call.
func TestFetchPrivateRangesNeedExplicitApproval(t *testing.T) {
	t.Parallel()
	tool := newTool(&netpolicy.Policy{Resolver: fakeResolver{"metadata.example.test": {netip.MustParseAddr("169.254.169.254")}}}, SearchConfig{})
	for url, why := range map[string]string{
		"http://169.254.169.254/latest/meta-data/": "the cloud metadata address",
		"http://metadata.example.test/":            "resolves to 169.254.169.254, which is the cloud metadata address",
		"http://127.0.0.1:8080/":                   "127.0.0.1 is a loopback address",
		"http://10.0.0.1/":                         "a private-network address",
		"http://[fe80::1]/":                        "a link-local address",
		"http://[fd00::1]/":                        "a private-network address",
		"http://100.64.0.1/":                       "carrier-grade NAT",
		"http://localhost:3000/":                   "loopback",
	} {
		c, err := tools.PrepareCall(tool, []byte(`{"action":"fetch","url":"`+url+`"}`))
		if err != nil || c.Policy.Approval != tools.Explicit || !strings.Contains(c.Policy.Reason, why) ||
			!strings.Contains(c.Policy.Reason, "[network] allow_private") {
			t.Errorf("%s: %+v %v", url, c, err)
		}
	}
}

// An approval covers the private host it named: a redirect from it to
// another private address (the metadata service) is refused at connect
// time, and so is a public name the prompt default let a person approve
// that is rebound to loopback afterwards.
// CONTRACT.md §6.10: the approval covers only the private host it named: a redirect to another private address or a
// rebinding is refused at connect time.
func TestFetchApprovalCoversOnlyWhatItNamed(t *testing.T) {
	t.Parallel()
	inner := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("credentials")) })
	_, innerPort, _ := net.SplitHostPort(strings.TrimPrefix(inner.URL, "http://"))
	outer := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+innerPort+"/", http.StatusFound)
	})
	_, _, err := call(t, newTool(&netpolicy.Policy{}, SearchConfig{}), `{"action":"fetch","url":"`+outer.URL+`/"}`)
	if err == nil || !strings.Contains(err.Error(), "localhost resolved to") {
		t.Errorf("redirect to another private host: %v", err)
	}
	flip := &flipResolver{first: netip.MustParseAddr("93.184.216.34"), then: netip.MustParseAddr("127.0.0.1")}
	tool := newTool(&netpolicy.Policy{Default: netpolicy.Prompt, Resolver: flip}, SearchConfig{})
	_, approval, err := call(t, tool, `{"action":"fetch","url":"http://rebind.example.test:`+innerPort+`/"}`)
	if approval != tools.Required || err == nil || !strings.Contains(err.Error(), "resolved to 127.0.0.1 at connect time") {
		t.Errorf("an approval of a public name reached loopback: %v %v", approval, err)
	}
}
