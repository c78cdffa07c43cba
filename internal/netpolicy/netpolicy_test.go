package netpolicy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, x := range s {
		out = append(out, netip.MustParseAddr(x))
	}
	return out
}

func TestMatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "EXAMPLE.com.", true},
		{"example.com", "api.example.com", false},
		{".example.com", "example.com", true},
		{".example.com", "api.example.com", true},
		{".example.com", "badexample.com", false},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "example.com", false},
		{"*", "anything.test", true},
		{"", "x", false},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.host); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.pattern, c.host, got)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	res := fakeResolver{
		"public.test":   addrs("93.184.216.34"),
		"rebind.test":   addrs("93.184.216.34", "127.0.0.1"),
		"metadata.test": addrs("169.254.169.254"),
		"mapped.test":   addrs("::ffff:10.0.0.1"),
		"lan.test":      addrs("192.168.1.10"),
		"localhost":     addrs("127.0.0.1", "::1"),
	}
	cases := []struct {
		name    string
		policy  Policy
		host    string
		want    Verdict
		reason  string
		private bool
	}{
		{"public allowed", Policy{}, "public.test", Permitted, "", false},
		{"loopback literal", Policy{}, "127.0.0.1", NeedsApproval, "127.0.0.1 is a loopback address", true},
		{"ipv6 loopback", Policy{}, "[::1]", NeedsApproval, "::1 is a loopback address", true},
		{"name resolving to loopback", Policy{}, "rebind.test", NeedsApproval, "rebind.test resolves to 127.0.0.1", true},
		{"cloud metadata", Policy{}, "metadata.test", NeedsApproval, "169.254.169.254, which is the cloud metadata address", true},
		{"ipv4-mapped private", Policy{}, "mapped.test", NeedsApproval, "10.0.0.1", true},
		{"lan", Policy{}, "lan.test", NeedsApproval, "192.168.1.10, which is a private-network address", true},
		{"cgnat", Policy{}, "100.64.0.1", NeedsApproval, "carrier-grade NAT", true},
		{"link-local v6", Policy{}, "fe80::1", NeedsApproval, "link-local", true},
		{"ula", Policy{}, "fd00::1", NeedsApproval, "private-network", true},
		{"allow admits no private address", Policy{Allow: []string{"lan.test", "*"}}, "lan.test", NeedsApproval, "[network] allow_private lists lan.test:8080", true},
		{"allow_private by name and port", Policy{AllowPrivate: []string{"lan.test:8080"}}, "lan.test", Permitted, "", false},
		{"allow_private by name, any port", Policy{AllowPrivate: []string{"lan.test"}}, "lan.test", Permitted, "", false},
		{"allow_private by address", Policy{AllowPrivate: []string{"127.0.0.1:8080", "::1"}}, "localhost", Permitted, "", false},
		{"allow_private, another port", Policy{AllowPrivate: []string{"lan.test:3000"}}, "lan.test", NeedsApproval, "lan.test:8080", true},
		{"allow_private, one address of two", Policy{AllowPrivate: []string{"127.0.0.1"}}, "localhost", NeedsApproval, "::1", true},
		{"prompt and private", Policy{Default: Prompt}, "lan.test", NeedsApproval, "192.168.1.10", true},
		{"deny wins over allow", Policy{Allow: []string{".test"}, Deny: []string{"public.test"}}, "public.test", Denied, "([network] deny)", false},
		{"deny wins over allow_private", Policy{Deny: []string{"lan.test"}, AllowPrivate: []string{"lan.test"}}, "lan.test", Denied, "([network] deny)", false},
		{"default deny", Policy{Default: Deny}, "public.test", Denied, `default = "deny"`, false},
		{"default deny, allowed", Policy{Default: Deny, Allow: []string{".public.test"}}, "public.test", Permitted, "", false},
		{"prompt", Policy{Default: Prompt}, "public.test", NeedsApproval, `default = "prompt"`, false},
		{"unresolvable is not a verdict", Policy{}, "nowhere.test", Permitted, "", false},
	}
	for _, c := range cases {
		p := c.policy
		p.Resolver = res
		d := p.Classify(context.Background(), c.host, "8080")
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) || (len(d.Private) > 0) != c.private {
			t.Errorf("%s: got %v %q private %v", c.name, d.Verdict, d.Reason, d.Private)
		}
	}
}

func TestParseHostPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"localhost:3000": "localhost 3000", "127.0.0.1:8080": "127.0.0.1 8080",
		"127.0.0.1": "127.0.0.1 ", "::1": "::1 ", "[::1]:8080": "::1 8080", "[::1]": "::1 ", " Dev.Box. ": "dev.box "} {
		h, p, err := ParseHostPort("network.allow_private", in)
		if err != nil || h+" "+p != want {
			t.Errorf("ParseHostPort(%q) = %q %q %v", in, h, p, err)
		}
	}
	for _, in := range []string{"", "http://localhost:3000", "localhost:", "localhost:http", "-x", "*", "a b", "user@host"} {
		if _, _, err := ParseHostPort("network.allow_private", in); err == nil || !strings.Contains(err.Error(), "network.allow_private") {
			t.Errorf("ParseHostPort(%q): %v", in, err)
		}
	}
}

// CONTRACT.md §6.10: loopback, link-local, private, CGNAT and reserved
// addresses, and IPv6 forms that carry one inside them (NAT64's
// 64:ff9b::a9fe:a9fe is the metadata address), need explicit approval;
// NAT64 and 6to4 of a public IPv4 address stay public.
func TestIsPrivate(t *testing.T) {
	t.Parallel()
	for _, a := range []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.169.254", "100.64.0.1",
		"0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1", "198.18.0.1", "255.255.255.255",
		"192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1", "100::1", "fec0::1", "::7f00:1",
		"::ffff:0:7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:a9fe:a9fe::1",
		"2001:0:4136:e378:8000:63bf:3fff:fdd2"} {
		if !IsPrivate(netip.MustParseAddr(a)) {
			t.Errorf("%s should be private", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1", "64:ff9b::808:808",
		"2002:808:808::1"} {
		if IsPrivate(netip.MustParseAddr(a)) {
			t.Errorf("%s should be public", a)
		}
	}
}

// The connect-time check holds even when DNS answered differently at
// approval time: a name that now resolves to loopback is not dialled, and
// a grant admits only the host, port and addresses it names.
// README.md "Modes and permissions": Hosts come from you: a private address is not dialled unless a grant names it, even when DNS changes after approval.
func TestDialRefusesPrivateAtConnectTime(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	p := &Policy{Resolver: fakeResolver{"public.test": addrs("127.0.0.1"), "other.test": addrs("127.0.0.1")}}
	get := func(g *Grant, host string) error {
		c := &http.Client{Transport: &http.Transport{DialContext: p.DialContext(g)}}
		resp, err := c.Get("http://" + host + ":" + port + "/")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(nil, "public.test"); err == nil || !errors.Is(err, ErrPrivate) || !strings.Contains(err.Error(), "public.test resolved to 127.0.0.1 at connect time") {
		t.Fatalf("got %v", err)
	}
	if err := get(&Grant{Host: "public.test", Port: port, Addrs: addrs("127.0.0.1")}, "public.test"); err != nil {
		t.Fatalf("approved call: %v", err)
	}
	for name, g := range map[string]*Grant{
		"another host":    {Host: "public.test", Port: port},
		"another port":    {Host: "other.test", Port: "1"},
		"another address": {Host: "other.test", Port: port, Addrs: addrs("10.0.0.1")},
	} {
		if err := get(g, "other.test"); !errors.Is(err, ErrPrivate) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p.AllowPrivate = []string{"127.0.0.1:" + port}
	if err := get(nil, "other.test"); err != nil {
		t.Errorf("allow_private by the dialled address: %v", err)
	}
}

func TestAuditLog(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "home", "audit.log")
	a := &AuditLog{Path: path}
	a.Record(Entry{Tool: "Web", Action: "fetch", URL: "https://example.com/", Host: "example.com", Decision: "allow", Status: 200})
	a.Record(Entry{Tool: "Web", Action: "fetch", Host: "bad.test", Decision: "deny", Error: "denied"})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"tool":"Web","action":"fetch","url":"https://example.com/","host":"example.com","decision":"allow","status":200`) {
		t.Fatalf("audit log:\n%s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	var nilLog *AuditLog
	nilLog.Record(Entry{}) // no panic
}

func TestParseDefault(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Default{"": Allow, "allow": Allow, "DENY": Deny, "prompt": Prompt} {
		if got, err := ParseDefault(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseDefault("maybe"); err == nil || !strings.Contains(err.Error(), "allowed: allow, deny, prompt") {
		t.Errorf("got %v", err)
	}
}
