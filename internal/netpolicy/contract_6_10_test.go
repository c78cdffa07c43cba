package netpolicy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// CONTRACT.md §6.10: every host goes through the network policy, however
// the model spells an address literal: a [network] deny or allow entry
// for an address holds for its IPv4-mapped IPv6 and long IPv6 forms, in
// Decide and at connect time.
func TestContractAddressSpellingsMeetTheSameListEntry(t *testing.T) {
	t.Parallel()
	p := &Policy{Deny: []string{"93.184.216.34", "2001:db8::1"}}
	for _, host := range []string{"93.184.216.34", "::ffff:93.184.216.34", "[::ffff:5db8:d822]", "::FFFF:93.184.216.34",
		"2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", "[2001:DB8::1]"} {
		if d := p.Decide(host); d.Verdict != Denied {
			t.Errorf("deny of the address, host %q: %+v", host, d)
		}
	}
	allowed := &Policy{Default: Deny, Allow: []string{"::ffff:93.184.216.34"}}
	if d := allowed.Decide("93.184.216.34"); d.Verdict != Permitted {
		t.Errorf("allow of the mapped spelling: %+v", d)
	}
	if !Match("0:0:0:0:0:0:0:1", "::1") || Match("::1", "127.0.0.1") {
		t.Error("Match does not compare address literals as addresses")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("reached")) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	denyLoop := &Policy{Deny: []string{"127.0.0.1"}, AllowPrivate: []string{"127.0.0.1"}}
	dial := denyLoop.DialContext(nil)
	for _, host := range []string{"127.0.0.1", "::ffff:127.0.0.1"} {
		c, err := dial(context.Background(), "tcp", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "network policy denies 127.0.0.1") {
			t.Errorf("dial %s past a deny of 127.0.0.1: %v", host, err)
		}
	}
}
