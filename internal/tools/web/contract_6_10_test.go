package web

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// portOf is the port of an httptest server's URL.
func portOf(t *testing.T, rawURL string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(rawURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// counted is a loopback server that counts the requests it answers.
func counted(t *testing.T, body string) (url string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(body))
	})
	return srv.URL, hits
}

// CONTRACT.md §6.10: a fetch of a private address, or of a name that
// resolves to one, is an explicit approval whose card names the address,
// whatever spelling the model picks for the host: userinfo in front of
// it, IPv4-mapped IPv6, long-form and unspecified IPv6, a zone, the
// unspecified IPv4 address, an upper-case name with a trailing dot, a
// name resolving to ::ffff:127.0.0.1, and the decimal, hex and octal
// spellings a C resolver reads as 127.0.0.1.
func TestContractFetchPrivateSpellingsNeedExplicitApproval(t *testing.T) {
	t.Parallel()
	loop := netip.MustParseAddr("127.0.0.1")
	res := fakeResolver{
		"mapped.example.test": {netip.MustParseAddr("::ffff:127.0.0.1")},
		"2130706433":          {loop}, // what getaddrinfo answers for these
		"0x7f000001":          {loop},
		"0177.0.0.1":          {loop},
		"127.1":               {loop},
	}
	tool := newTool(&netpolicy.Policy{Resolver: res}, SearchConfig{})
	for url, addr := range map[string]string{
		"http://docs.example.com@127.0.0.1:8080/":    "127.0.0.1",
		"http://user:pw@169.254.169.254/latest/":     "169.254.169.254",
		"http://[::ffff:127.0.0.1]/":                 "127.0.0.1",
		"http://[::ffff:169.254.169.254]/":           "169.254.169.254",
		"http://[::ffff:a9fe:a9fe]/":                 "169.254.169.254",
		"http://[0:0:0:0:0:0:0:1]:3000/":             "::1",
		"http://[::]/":                               "::",
		"http://0.0.0.0:8080/":                       "0.0.0.0",
		"http://[fe80::1%25eth0]/":                   "fe80::1%eth0",
		"http://172.16.0.1/":                         "172.16.0.1",
		"http://192.168.1.1/":                        "192.168.1.1",
		"http://[fc00::1]/":                          "fc00::1",
		"http://LOCALHOST.:3000/":                    "127.0.0.1",
		"http://mapped.example.test/":                "127.0.0.1",
		"http://2130706433/":                         "127.0.0.1",
		"http://0x7f000001/":                         "127.0.0.1",
		"http://0177.0.0.1/":                         "127.0.0.1",
		"http://127.1/":                              "127.0.0.1",
		"https://metadata.google.internal.@[::1]/x/": "::1",
	} {
		c, err := tools.PrepareCall(tool, []byte(`{"action":"fetch","url":"`+url+`"}`))
		if err != nil || c.Policy.Approval != tools.Explicit || !strings.Contains(c.Policy.Reason, addr) {
			t.Errorf("%s: %+v %v; want an explicit approval naming %s", url, c, err, addr)
		}
	}
}

// CONTRACT.md §6.10: a redirect is checked at connect time on the address
// actually dialled: from a host allow_private lists (on one port), a
// redirect to another port of it, to its IPv4-mapped spelling, to
// localhost, to the unspecified address, to a public-looking name that
// resolves to loopback or to the metadata address is refused, and the
// target is never reached.
// README.md "Web and GitHub": a redirect from an approved dev server to another private address is refused.
func TestContractRedirectToAPrivateAddressIsRefusedAtConnectTime(t *testing.T) {
	t.Parallel()
	innerURL, hits := counted(t, "secret")
	inner := portOf(t, innerURL)
	var target atomic.Value
	outer := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.Load().(string), http.StatusFound)
	})
	res := fakeResolver{"public.example.test": {netip.MustParseAddr("127.0.0.1")}}
	p := &netpolicy.Policy{AllowPrivate: []string{"127.0.0.1:" + portOf(t, outer.URL)}, Resolver: res}
	tool := newTool(p, SearchConfig{})
	for _, to := range []string{
		"http://127.0.0.1:" + inner + "/",
		"http://[::ffff:127.0.0.1]:" + inner + "/",
		"http://localhost:" + inner + "/",
		"http://0.0.0.0:" + inner + "/",
		"http://public.example.test:" + inner + "/",
		"http://169.254.169.254/latest/meta-data/",
	} {
		target.Store(to)
		_, approval, err := call(t, tool, `{"action":"fetch","url":"`+outer.URL+`/"}`)
		var te *tools.Error
		if approval != tools.Auto || err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), "at connect time") {
			t.Errorf("redirect to %s: approval %v, err %v; want a connect-time refusal", to, approval, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect target was reached %d times", n)
	}
}

// CONTRACT.md §6.10: the approval covers the private addresses it named on
// that host and port only: after a person approved 127.0.0.1 on one port,
// a redirect to the same path on the same host and port is followed, one
// to another port of the same address is refused at connect time, and a
// name approved for one private address that is rebound to another is
// refused at connect time.
// README.md "Web and GitHub": an approval covers only the addresses it named on that host and port.
func TestContractApprovalCoversItsHostAndPortOnly(t *testing.T) {
	t.Parallel()
	innerURL, hits := counted(t, "other service")
	inner := portOf(t, innerURL)
	var outerURL string
	outer := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, outerURL+"/page", http.StatusFound)
		case "/port":
			http.Redirect(w, r, "http://127.0.0.1:"+inner+"/", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("approved page"))
		}
	})
	outerURL = outer.URL
	tool := newTool(&netpolicy.Policy{}, SearchConfig{})
	res, approval, err := call(t, tool, `{"action":"fetch","url":"`+outer.URL+`/same"}`)
	if approval != tools.Explicit || err != nil || !strings.Contains(res.Content, "approved page") {
		t.Errorf("same host and port: %v %v %s", approval, err, res.Content)
	}
	_, approval, err = call(t, tool, `{"action":"fetch","url":"`+outer.URL+`/port"}`)
	if approval != tools.Explicit || err == nil || !strings.Contains(err.Error(), "127.0.0.1 resolved to 127.0.0.1 at connect time") {
		t.Errorf("another port: %v %v", approval, err)
	}
	// Approved for 127.0.0.2 (a private address it named), rebound to
	// 127.0.0.1 by the time the connection is made.
	flip := &flipResolver{first: netip.MustParseAddr("127.0.0.2"), then: netip.MustParseAddr("127.0.0.1")}
	rebound := newTool(&netpolicy.Policy{Resolver: flip}, SearchConfig{})
	_, approval, err = call(t, rebound, `{"action":"fetch","url":"http://dev.example.test:`+inner+`/"}`)
	if approval != tools.Explicit || err == nil || !strings.Contains(err.Error(), "dev.example.test resolved to 127.0.0.1 at connect time") {
		t.Errorf("rebound to another private address: %v %v", approval, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a target the approval did not name was reached %d times", n)
	}
}

// CONTRACT.md §6.10: allow_private "host:port" admits that host on that
// port only, and "127.0.0.1" admits any port of the address (whatever name
// resolves to it); [network] allow admits no private address.
// README.md "Web and GitHub": allow_private admits the hosts it lists (host, host:port) without approval.
func TestContractAllowPrivateEntries(t *testing.T) {
	t.Parallel()
	loop := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	res := fakeResolver{"dev.example.test": loop}
	for _, c := range []struct {
		entry, url string
		want       tools.Approval
	}{
		{"localhost:3000", "http://localhost:3000/", tools.Auto},
		{"localhost:3000", "http://localhost:3001/", tools.Explicit},
		{"localhost:3000", "http://127.0.0.1:3000/", tools.Explicit},
		{"localhost:3000", "http://app.localhost:3000/", tools.Explicit},
		{"127.0.0.1", "http://127.0.0.1:1/", tools.Auto},
		{"127.0.0.1", "http://127.0.0.1:65535/", tools.Auto},
		{"127.0.0.1", "http://dev.example.test:9/", tools.Auto},
		{"127.0.0.1", "http://[::1]:9/", tools.Explicit},
		{"127.0.0.1", "http://169.254.169.254/", tools.Explicit},
	} {
		tool := newTool(&netpolicy.Policy{AllowPrivate: []string{c.entry}, Resolver: res}, SearchConfig{})
		got, err := tools.PrepareCall(tool, []byte(`{"action":"fetch","url":"`+c.url+`"}`))
		if err != nil || got.Policy.Approval != c.want {
			t.Errorf("allow_private %q, %s: %+v %v; want %v", c.entry, c.url, got, err, c.want)
		}
	}
	tool := newTool(&netpolicy.Policy{Allow: []string{"*", "169.254.169.254", ".example.test"}, Resolver: res}, SearchConfig{})
	for _, url := range []string{"http://169.254.169.254/", "http://dev.example.test/"} {
		if got, err := tools.PrepareCall(tool, []byte(`{"action":"fetch","url":"`+url+`"}`)); err != nil || got.Policy.Approval != tools.Explicit {
			t.Errorf("[network] allow admitted %s: %+v %v", url, got, err)
		}
	}
}

// CONTRACT.md §6.10: the connect-time check sees the real target: the
// fetch client never goes through an environment proxy.
func TestContractFetchNeverUsesAProxy(t *testing.T) {
	t.Parallel()
	tool := newTool(&netpolicy.Policy{}, SearchConfig{})
	rt, ok := tool.client(nil, 0).Transport.(userAgent).rt.(*http.Transport)
	if !ok || rt.Proxy != nil || rt.DialContext == nil {
		t.Fatalf("the fetch transport may use a proxy or the default dialer: %+v", rt)
	}
}

// CONTRACT.md §6.10: every host goes through the network policy before the
// call: a [network] deny of an address also refuses its IPv4-mapped IPv6
// spelling, which used to pass the deny list and reach the address after
// an approval.
func TestContractDenyOfAnAddressHoldsForItsOtherSpellings(t *testing.T) {
	t.Parallel()
	url, hits := counted(t, "denied service")
	port := portOf(t, url)
	p := &netpolicy.Policy{Deny: []string{"127.0.0.1"}}
	for _, host := range []string{"127.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"} {
		_, approval, err := call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"http://`+host+`:`+port+`/"}`)
		if approval != tools.Auto || err == nil || !strings.Contains(err.Error(), "network policy denies 127.0.0.1 ([network] deny)") {
			t.Errorf("%s: approval %v, err %v; want the deny list's refusal", host, approval, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the denied address was reached %d times", n)
	}
}

// CONTRACT.md §6.10: a search backend the person configured is reached on
// its own scheme, host and port only: a redirect from it to another
// loopback port or to the metadata address is refused before anything is
// dialled, naming the backend and the target, and the search fails
// instead of reading it.
func TestContractSearchBackendRedirectIsRefused(t *testing.T) {
	t.Parallel()
	innerURL, hits := counted(t, `{"results":[]}`)
	for _, to := range []string{innerURL + "/search", "http://169.254.169.254/latest/meta-data/"} {
		backend := serve(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
		cfg := SearchConfig{Provider: "searxng", Fallback: []string{}, Backends: map[string]Endpoint{"searxng": {BaseURL: backend.URL}}}
		_, _, err := call(t, newTool(&netpolicy.Policy{}, cfg), `{"action":"search","query":"x"}`)
		if err == nil || !strings.Contains(err.Error(), "searxng: backend_unavailable") ||
			!strings.Contains(err.Error(), "search backend searxng redirected to "+to) {
			t.Errorf("backend redirect to %s: %v", to, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the redirect target was reached %d times", n)
	}
}

// CONTRACT.md §6.10: search's max_results defaults to 5 and recency takes
// 1..3650 days; 0 and 3651 days are refused by the schema validator.
func TestContractSearchKnobBounds(t *testing.T) {
	t.Parallel()
	d, err := decodeInput([]byte(`{"action":"search","query":"x","recency":3650}`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := request(d)
	if err != nil || len(in.queries) != 1 || in.queries[0].MaxResults != 5 || in.queries[0].Days != 3650 {
		t.Fatalf("%+v %v", in.queries, err)
	}
	for _, days := range []string{"0", "3651", `"fortnight"`} {
		if _, err := decodeInput([]byte(`{"action":"search","query":"x","recency":` + days + `}`)); err == nil ||
			!strings.Contains(err.Error(), "arguments do not match the tool's schema") {
			t.Errorf("recency %s: %v", days, err)
		}
	}
}
