package netpolicy

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// CONTRACT.md §6.10: the connect-time check is on the address actually
// dialled: an address [network] deny lists is refused whatever name or
// spelling reaches it (a decimal literal the system resolver reads as
// 127.0.0.1, a public-looking name resolving to it, localhost), even when
// allow_private lists it and a grant names the host — deny wins.
func TestContractDenyOfAnAddressHoldsForTheAddressDialled(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	res := fakeResolver{"2130706433": addrs("127.0.0.1"), "evil.example.test": addrs("127.0.0.1"),
		"split.example.test": addrs("93.184.216.34", "127.0.0.1")}
	p := &Policy{Deny: []string{"127.0.0.1"}, AllowPrivate: []string{"127.0.0.1", "evil.example.test", "localhost"}, Resolver: res}
	for _, host := range []string{"2130706433", "evil.example.test", "split.example.test", "localhost"} {
		dial := p.DialContext(&Grant{Host: host, Port: port})
		c, err := dial(context.Background(), "tcp", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
		}
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "network policy denies "+host+": it resolves to 127.0.0.1, which [network] deny lists") {
			t.Errorf("dial %s: %v; want the deny list's refusal", host, err)
		}
		if d := p.Classify(context.Background(), host, port); d.Verdict != Denied || !strings.Contains(d.Reason, "[network] deny lists") {
			t.Errorf("classify %s: %+v", host, d)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the denied address was reached %d times", n)
	}
	// An address not on the list is still reached.
	other := &Policy{Deny: []string{"10.0.0.1"}, AllowPrivate: []string{"127.0.0.1"}, Resolver: res}
	c, err := other.DialContext(nil)(context.Background(), "tcp", net.JoinHostPort("evil.example.test", port))
	if err != nil {
		t.Fatalf("an address off the deny list: %v", err)
	}
	c.Close()
}
