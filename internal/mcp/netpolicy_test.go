package mcp

import (
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
)

// The [network] policy applies to MCP over HTTP: a denied host is never
// connected to and the server reports why; an allowed configured host
// (loopback here) connects.
func TestHTTPServersFollowTheNetworkPolicy(t *testing.T) {
	t.Parallel()
	url := startEverythingHTTP(t)
	path := writeConfig(t, map[string]any{"remote": map[string]any{"url": url}}, nil)
	denied := startPool(t, path, Options{Network: &netpolicy.Policy{Deny: []string{"127.0.0.1"}}})
	st := mustStatus(t, denied, "remote")
	if st.State == StateConnected || !strings.Contains(st.Error, "network policy denies 127.0.0.1") {
		t.Fatalf("denied server: %s %q", st.State, st.Error)
	}
	closed := startPool(t, path, Options{Network: &netpolicy.Policy{Default: netpolicy.Deny}})
	if st := mustStatus(t, closed, "remote"); st.State == StateConnected || !strings.Contains(st.Error, `default = "deny"`) {
		t.Fatalf("default deny: %s %q", st.State, st.Error)
	}
	allowed := startPool(t, path, Options{Network: &netpolicy.Policy{Default: netpolicy.Deny, Allow: []string{"127.0.0.1"}}})
	requireConnected(t, allowed, "remote")
}
