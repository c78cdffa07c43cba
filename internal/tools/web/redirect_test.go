package web

import (
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// CONTRACT.md §6.10: a search backend is followed only within its
// endpoint's scheme, host and port, so the key it sends in a header
// (Brave's X-Subscription-Token, Tavily's Authorization, which Go keeps
// across a change of port) never reaches another host: a redirect to
// another loopback port is refused, naming the backend and the target,
// and the other server sees no request at all.
func TestSearchBackendKeyNeverFollowsARedirect(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+
			" token="+r.Header.Get("X-Subscription-Token"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(fixture(t, "brave.json"))
	})
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		backend := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/leak", status)
		})
		for _, engine := range []string{"brave", "tavily", "searxng", "duckduckgo"} {
			cfg := config(backend.URL, engine, []string{}...)
			_, _, err := call(t, newTool(loopbackAllowed(), cfg), `{"action":"search","query":"x"}`)
			if err == nil || !strings.Contains(err.Error(), "search backend "+engine+" redirected to "+other.URL+"/leak") {
				t.Errorf("%s, HTTP %d to another port: %v", engine, status, err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the other host was reached: %v", leaked)
	}
}

// A backend's redirect within its own origin (a trailing-slash fix-up)
// is still followed, with the key.
func TestSearchBackendSameOriginRedirectIsFollowed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var tokens []string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tokens = append(tokens, r.Header.Get("X-Subscription-Token"))
		mu.Unlock()
		if r.URL.Path == "/brave/res/v1/web/search" {
			http.Redirect(w, r, "/moved/res/v1/web/search?"+r.URL.RawQuery, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(fixture(t, "brave.json"))
	})
	res, _, err := call(t, newTool(loopbackAllowed(), config(srv.URL, "brave", []string{}...)), `{"action":"search","query":"x"}`)
	if err != nil || !res.Success {
		t.Fatalf("%v %s", err, res.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(tokens, ",") != "brave-test,brave-test" {
		t.Errorf("tokens seen %q", tokens)
	}
}

// CONTRACT.md §6.10: under default = "prompt" a redirect cannot ask, so
// one to another port of the approved host — another server — is refused
// like one to another host; one on the same host and port is followed.
func TestPromptRedirectToAnotherPortIsRefused(t *testing.T) {
	t.Parallel()
	innerURL, hits := counted(t, "other server")
	outer := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		if r.URL.Path == "/final" {
			w.Write([]byte("same server"))
			return
		}
		http.Redirect(w, r, innerURL+"/", http.StatusFound)
	})
	p := &netpolicy.Policy{Default: netpolicy.Prompt, AllowPrivate: []string{"127.0.0.1"}}
	_, approval, err := call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"`+outer.URL+`/"}`)
	if approval != tools.Required || err == nil ||
		!strings.Contains(err.Error(), "redirect to "+innerURL+"/ refused") || !strings.Contains(err.Error(), "fetch that URL directly") {
		t.Errorf("redirect to another port: approval %v, err %v", approval, err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other port was reached %d times", n)
	}
	res, _, err := call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"`+outer.URL+`/same"}`)
	if err != nil || !strings.Contains(res.Content, "same server") {
		t.Errorf("same host and port: %v %s", err, res.Content)
	}
}

// The port compared is the effective one: 80 or 443 by scheme when the
// URL names none.
func TestSameHostPortUsesTheEffectivePort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"http://h.test/", "http://h.test:80/x", true},
		{"https://h.test/", "https://H.test:443/", true},
		{"http://h.test/", "https://h.test/", false},
		{"http://h.test:8080/", "http://h.test/", false},
		{"http://h.test:8080/", "http://h.test:8081/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := sameHostPort(a, b); got != c.want {
			t.Errorf("sameHostPort(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// CONTRACT.md §6.10: a [network] deny of an address holds on the address
// actually dialled: a decimal spelling the resolver reads as it, or a name
// resolving to it, is refused at connect time even though allow_private
// lists the address, and nothing is reached.
func TestFetchDenyOfAnAddressHoldsAtConnectTime(t *testing.T) {
	t.Parallel()
	target, hits := counted(t, "denied service")
	port := portOf(t, target)
	res := fakeResolver{"2130706433": {netip.MustParseAddr("127.0.0.1")}, "evil.example.test": {netip.MustParseAddr("127.0.0.1")}}
	p := &netpolicy.Policy{Deny: []string{"127.0.0.1"}, AllowPrivate: []string{"127.0.0.1", "evil.example.test"}, Resolver: res}
	for _, host := range []string{"2130706433", "evil.example.test"} {
		_, _, err := call(t, newTool(p, SearchConfig{}), `{"action":"fetch","url":"http://`+host+`:`+port+`/"}`)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindPermissionDenied ||
			!strings.Contains(err.Error(), "network policy denies "+host+": it resolves to 127.0.0.1, which [network] deny lists") {
			t.Errorf("%s: %v; want the deny list's refusal", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the denied address was reached %d times", n)
	}
}
