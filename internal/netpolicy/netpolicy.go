// Package netpolicy decides which hosts the agent's own network clients (the
// Web tool, MCP over HTTP, the github tool's gh) may reach: the [network]
// table's default, allow and deny lists, plus the rule that private,
// loopback and link-local addresses — judged after DNS resolution, so a
// public name that resolves to 127.0.0.1 or 169.254.169.254 counts — are
// reached only when [network] allow_private lists the host (the person's own
// dev servers) or a person approved that one call (CONTRACT.md §6.10). It
// also writes the optional audit log.
//
// The check happens twice: once before a call (Classify, to decide whether
// the user must approve it) and again at connect time (DialContext), because
// DNS can answer differently between the two. The connect-time check, on
// the address actually dialled, is the one that holds.
package netpolicy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Default is the [network] default for hosts on neither list.
type Default int

const (
	Allow Default = iota
	Deny
	Prompt
)

func (d Default) String() string { return [...]string{"allow", "deny", "prompt"}[d] }

// ParseDefault reads the [network] default value.
func ParseDefault(s string) (Default, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "allow":
		return Allow, nil
	case "deny":
		return Deny, nil
	case "prompt", "ask":
		return Prompt, nil
	}
	return Allow, fmt.Errorf("network.default: unknown value %q (allowed: allow, deny, prompt)", s)
}

// Policy is the effective network policy. The zero value allows every
// public host and holds private addresses for approval.
type Policy struct {
	Default Default
	Allow   []string // host patterns: "example.com" exact, ".example.com" the domain and its subdomains, "*" any
	Deny    []string // the same patterns; deny wins over allow
	// AllowPrivate are the private hosts reached without asking: "host"
	// (any port) or "host:port", a name or an address literal, matched
	// exactly (ParseHostPort). Allow admits no private address.
	AllowPrivate []string
	// Resolver resolves host names; nil uses net.DefaultResolver. Tests
	// inject one to make a public-looking name resolve to loopback.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
	// Audit, when set, receives one line per network call.
	Audit *AuditLog
}

// Verdict is the outcome of classifying a host before a call.
type Verdict int

const (
	// Permitted: the call may go ahead without asking.
	Permitted Verdict = iota
	// NeedsApproval: the user must approve the call (prompt policy, or a
	// private address that is not allowed explicitly).
	NeedsApproval
	// Denied: the policy refuses the host.
	Denied
)

// Decision is a verdict with the reason a person or model can read.
type Decision struct {
	Verdict Verdict
	Reason  string
	// Private are the private addresses the host is or resolves to that
	// [network] allow_private does not list: reaching them needs a
	// person's explicit approval of the one call (Grant), in every posture.
	Private []netip.Addr
}

// Decide applies the lists and the default to host without resolving it.
func (p *Policy) Decide(host string) Decision {
	host = normalizeHost(host)
	if matchAny(p.Deny, host) {
		return Decision{Verdict: Denied, Reason: fmt.Sprintf("network policy denies %s ([network] deny)", host)}
	}
	if matchAny(p.Allow, host) {
		return Decision{Verdict: Permitted}
	}
	switch p.Default {
	case Deny:
		return Decision{Verdict: Denied, Reason: fmt.Sprintf(
			"network policy denies %s: [network] default = \"deny\" and it is not in [network] allow", host)}
	case Prompt:
		return Decision{Verdict: NeedsApproval, Reason: fmt.Sprintf(
			"[network] default = \"prompt\": reaching %s needs approval", host)}
	}
	return Decision{Verdict: Permitted}
}

// Classify is Decide plus the private-address rule for host on port: a
// host that is, or resolves to, a private address allow_private does not
// list needs an explicit approval (Decision.Private). A resolution failure
// is not a verdict; the connect will fail on its own.
func (p *Policy) Classify(ctx context.Context, host, port string) Decision {
	d := p.Decide(host)
	if d.Verdict == Denied {
		return d
	}
	name := normalizeHost(host)
	addrs, err := p.resolve(ctx, name)
	if err != nil {
		return d
	}
	if reason, denied := p.deniedAddr(name, addrs); denied {
		return Decision{Verdict: Denied, Reason: reason}
	}
	for _, a := range addrs {
		if IsPrivate(a) && !p.privateListed(name, port, a) {
			d.Private = append(d.Private, a)
		}
	}
	if len(d.Private) > 0 {
		d.Verdict = NeedsApproval
		d.Reason = privateReason(name, port, d.Private[0])
	}
	return d
}

func (p *Policy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if IsLoopbackHost(host) { // RFC 6761: localhost names are this machine, whatever a resolver says
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var r interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	} = net.DefaultResolver
	if p.Resolver != nil {
		r = p.Resolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	return addrs, nil
}

// ErrPrivate is wrapped by connect-time refusals of private addresses.
var ErrPrivate = errors.New("private address not approved")

// ErrDenied matches (errors.Is) the dialer's refusals by [network] deny
// or the deny default; the error's text is the policy's reason.
var ErrDenied = errors.New("network policy denies the host")

type denial string

func (d denial) Error() string      { return string(d) }
func (denial) Is(target error) bool { return target == ErrDenied }

// deniedAddr applies the address-literal entries of [network] deny to the
// addresses host resolved to, so a denied address is not reached by
// another spelling of it (2130706433, 0x7f.1) or by a name that resolves
// to it; deny wins over allow_private and over a grant. One denied
// address refuses the host.
func (p *Policy) deniedAddr(host string, addrs []netip.Addr) (string, bool) {
	for _, pat := range p.Deny {
		d, err := netip.ParseAddr(normalizeHost(pat))
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if a.Unmap() == d.Unmap() {
				if a.String() == host {
					return fmt.Sprintf("network policy denies %s ([network] deny)", host), true
				}
				return fmt.Sprintf("network policy denies %s: it resolves to %s, which [network] deny lists", host, a.Unmap()), true
			}
		}
	}
	return "", false
}

// DialContext returns a dial function that resolves the host itself, applies
// the policy to the name and to every address it resolves to (the deny
// list's address entries included), and connects
// only to an address it checked: a private address only when allow_private
// lists it or g (nil: none) grants it for this host and port — so a
// redirect or a rebound name never reaches a private address the approval
// was not about.
func (p *Policy) DialContext(g *Grant) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		dec := p.Decide(host)
		if dec.Verdict == Denied {
			return nil, denial(dec.Reason)
		}
		name := normalizeHost(host)
		addrs, err := p.resolve(ctx, name)
		if err != nil {
			return nil, err
		}
		if reason, denied := p.deniedAddr(name, addrs); denied {
			return nil, denial(reason)
		}
		var lastErr error
		for _, a := range addrs {
			if IsPrivate(a) && !p.privateListed(name, port, a) && !g.admits(name, port, a) {
				lastErr = fmt.Errorf("%w: %s resolved to %s at connect time; %s", ErrPrivate, name, a, privateFix(name, port))
				continue
			}
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			lastErr = err
		}
		if lastErr == nil {
			lastErr = fmt.Errorf("%s has no addresses", host)
		}
		return nil, lastErr
	}
}

// IsLoopbackHost reports whether host names this machine: "localhost" (and
// its subdomains) or a loopback address literal.
func IsLoopbackHost(host string) bool {
	host = normalizeHost(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// Match reports whether host matches pattern: "*" any host, ".example.com"
// example.com and every subdomain, "*.example.com" the subdomains only,
// anything else exactly (case-insensitive, trailing dot ignored).
func Match(pattern, host string) bool {
	pattern, host = normalizeHost(pattern), normalizeHost(host)
	switch {
	case pattern == "":
		return false
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(host, pattern[1:])
	case strings.HasPrefix(pattern, "."):
		return host == pattern[1:] || strings.HasSuffix(host, pattern)
	}
	return host == pattern
}

func matchAny(patterns []string, host string) bool {
	for _, p := range patterns {
		if Match(p, host) {
			return true
		}
	}
	return false
}

// normalizeHost is h lower-cased, without brackets or a trailing dot, and
// an address literal in its one canonical spelling (IPv4-mapped IPv6 as
// IPv4, IPv6 compressed), so a list entry for an address holds however
// the model spells it (CONTRACT.md §6.10).
func normalizeHost(h string) string {
	h = strings.TrimSpace(strings.ToLower(h))
	h = strings.TrimPrefix(strings.TrimSuffix(h, "]"), "[")
	h = strings.TrimSuffix(h, ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String()
	}
	return h
}
