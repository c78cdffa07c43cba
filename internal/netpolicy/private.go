package netpolicy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// IsPrivate reports whether a is an address an agent-initiated request must
// not reach unasked: loopback, private (RFC 1918, ULA), link-local (cloud
// metadata lives at 169.254.169.254), CGNAT, unspecified, multicast,
// benchmarking, documentation and reserved ranges, and an IPv6 address that
// carries one of those IPv4 addresses inside it (NAT64 64:ff9b::/96, 6to4
// 2002::/16) or is a transition form with no public use (IPv4-compatible,
// IPv4-translated, Teredo, site-local).
func IsPrivate(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range reserved() {
		if p.Contains(a) {
			return true
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			return IsPrivate(netip.AddrFrom4([4]byte(b[12:16])))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			return IsPrivate(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return false
}

func reserved() []netip.Prefix {
	return []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
		netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
		netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
		netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("64:ff9b:1::/48"),
		netip.MustParsePrefix("::/96"),           // IPv4-compatible (::a.b.c.d), deprecated
		netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
		netip.MustParsePrefix("100::/64"),        // discard-only
		netip.MustParsePrefix("2001::/32"),       // Teredo
		netip.MustParsePrefix("2001:db8::/32"),   // documentation
		netip.MustParsePrefix("fec0::/10"),       // site-local, deprecated
	}
}

// kind names the range a private address is in, for a reason a person reads.
func kind(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address (this machine)"
	case a == netip.MustParseAddr("169.254.169.254"):
		return "the cloud metadata address (instance credentials live there)"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsPrivate():
		return "a private-network address"
	case netip.MustParsePrefix("100.64.0.0/10").Contains(a):
		return "a carrier-grade NAT address"
	}
	return "a reserved or local address"
}

// Grant admits private addresses for one host and port beyond the policy:
// a person approved one call to it (Addrs: the private addresses the
// approval named), or configured it (a search backend, an MCP server: Addrs
// nil admits any address of that host and port).
type Grant struct {
	Host, Port string
	Addrs      []netip.Addr
}

// GrantURL grants the host and port of u (as the person configured it).
func GrantURL(u *url.URL) *Grant {
	h, p := HostPort(u)
	return &Grant{Host: h, Port: p}
}

func (g *Grant) admits(host, port string, a netip.Addr) bool {
	if g == nil || normalizeHost(g.Host) != host || g.Port != port {
		return false
	}
	return g.Addrs == nil || slices.Contains(g.Addrs, a.Unmap())
}

// HostPort is u's host (normalised) and port, the scheme's default when u
// names none.
func HostPort(u *url.URL) (host, port string) {
	port = u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return normalizeHost(u.Hostname()), port
}

// ParseHostPort reads a host the person configured (a [network]
// allow_private or [github] hosts entry, key names it in errors) or one a
// model named where only such hosts may go: "host" or "host:port", a name
// or an address literal ("[::1]:8080", "::1"), lower-cased, trailing dot
// dropped. Nothing option-shaped, no scheme, path, user or space passes.
func ParseHostPort(key, entry string) (host, port string, err error) {
	e := strings.TrimSpace(entry)
	bad := fmt.Errorf("%s: %q is not a host or host:port (e.g. \"localhost:3000\", \"127.0.0.1\")", key, entry)
	if e == "" || strings.ContainsAny(e, "/@ *") || strings.HasPrefix(e, "-") {
		return "", "", bad
	}
	if _, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil && !strings.Contains(e, "]:") {
		return normalizeHost(e), "", nil
	}
	if !strings.Contains(e, ":") {
		return normalizeHost(e), "", nil
	}
	h, p, err := net.SplitHostPort(e)
	if err != nil || h == "" || p == "" || strings.Trim(p, "0123456789") != "" {
		return "", "", bad
	}
	return normalizeHost(h), p, nil
}

// privateListed reports whether allow_private lists host (by name, or by
// the address dialled) on port.
func (p *Policy) privateListed(host, port string, a netip.Addr) bool {
	for _, e := range p.AllowPrivate {
		h, eport, err := ParseHostPort("network.allow_private", e)
		if err != nil || (eport != "" && eport != port) {
			continue
		}
		if h == host {
			return true
		}
		if ea, err := netip.ParseAddr(h); err == nil && ea.Unmap() == a.Unmap() {
			return true
		}
	}
	return false
}

func privateReason(host, port string, a netip.Addr) string {
	where := host
	if a.String() != host {
		where += " resolves to " + a.String() + ", which is"
	} else {
		where += " is"
	}
	return fmt.Sprintf("%s %s; a private, loopback or link-local address is reached only with a person's approval of "+
		"this one call, or when [network] allow_private lists %s", where, kind(a), net.JoinHostPort(host, port))
}

func privateFix(host, port string) string {
	return fmt.Sprintf("a private address is reached only after a person approves a call to it, or when "+
		"[network] allow_private lists %s", net.JoinHostPort(host, port))
}
