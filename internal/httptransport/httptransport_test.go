package httptransport

import (
	"context"
	"net"
	"testing"
)

// Every transport honours the proxy variables unless its dialer must see
// the real target; plain clients share one transport per trust store.
func TestTransportsHonourProxiesUnlessDirect(t *testing.T) {
	t.Parallel()
	if New(Options{}).Proxy == nil {
		t.Error("an ordinary transport ignores HTTPS_PROXY")
	}
	dial := func(context.Context, string, string) (net.Conn, error) { return nil, nil }
	d := New(Options{Dial: dial, Direct: true, MaxIdleConns: 4})
	if d.Proxy != nil || d.DialContext == nil || d.MaxIdleConns != 4 {
		t.Errorf("a direct transport: proxy set %v, idle %d", d.Proxy != nil, d.MaxIdleConns)
	}
	if Shared("") != Shared("") || Shared("") == Shared("/etc/ssl/other.pem") {
		t.Error("shared transports are not one per trust store")
	}
}
