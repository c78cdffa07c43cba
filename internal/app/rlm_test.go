package app

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/web"
)

// flipResolver answers a public address first and loopback afterwards: a
// name rebound between rlm's approval and its fetch.
type flipResolver struct {
	mu sync.Mutex
	n  int
}

func (f *flipResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// rlm's url opens go through the Web tool's policy: a private host needs
// an explicit approval and, approved, is read; one [network]
// allow_private lists is read unasked; a name
// that looked public when the call was approved and is private when it is
// fetched is refused, never fetched unasked.
func TestRLMFetchTakesTheWebPolicy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("internal page"))
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	cases := []struct {
		name     string
		policy   *netpolicy.Policy
		url      string
		approval tools.Approval
		err      string
	}{
		{"loopback needs approval", &netpolicy.Policy{}, srv.URL, tools.Explicit, ""},
		{"allowed loopback runs unasked", &netpolicy.Policy{AllowPrivate: []string{"127.0.0.1:" + port}}, srv.URL, tools.Auto, ""},
		{"rebound name", &netpolicy.Policy{Resolver: &flipResolver{}}, "http://rebind.example.test:" + port + "/",
			tools.Auto, "rebind.example.test resolved to 127.0.0.1 at connect time"},
		{"denied host", &netpolicy.Policy{Deny: []string{"127.0.0.1"}}, srv.URL, tools.Auto, "network policy denies 127.0.0.1"},
	}
	if _, _, err := rlmFetch(web.New(web.Options{}), t.TempDir())("ftp://example.com/"); err == nil ||
		!strings.Contains(err.Error(), "only http:// and https:// URLs are supported") {
		t.Errorf("ftp: %v", err)
	}
	for _, c := range cases {
		pol, fetch, err := rlmFetch(web.New(web.Options{Policy: c.policy}), t.TempDir())(c.url)
		if err != nil || pol.Approval != c.approval {
			t.Errorf("%s: approval %v (%v), want %v", c.name, pol.Approval, err, c.approval)
			continue
		}
		text, err := fetch(context.Background())
		switch {
		case c.err == "" && (err != nil || text != "internal page"):
			t.Errorf("%s: %q %v", c.name, text, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %q %v, want %q", c.name, text, err, c.err)
		}
	}
}
