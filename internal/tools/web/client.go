package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/httptransport"
	"github.com/codewhale/codewhale/internal/netpolicy"
)

const maxRedirects = 5

// client returns an HTTP client whose every connection goes through the
// network policy's dialer (which re-checks the address it dials; grant, nil
// for none, admits the private addresses a person approved or configured),
// that follows at most five redirects and re-checks each target's host,
// and never uses an environment proxy (the policy must see the real target).
func (t *Tool) client(grant *netpolicy.Grant, timeout time.Duration) *http.Client {
	rt := t.opts.Transport
	if rt == nil {
		rt = httptransport.New(httptransport.Options{Dial: t.policy.DialContext(grant), Direct: true,
			ResponseHeaderTimeout: 30 * time.Second, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second})
	}
	return &http.Client{
		Transport: userAgent{rt, t.opts.UserAgent},
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("%w: stopped after %d redirects (at most %d are followed); last target %s",
					errTooManyRedirects, maxRedirects, maxRedirects, req.URL.Redacted())
			}
			return t.checkRedirect(req.URL, via[0].URL)
		},
	}
}

var errTooManyRedirects = errors.New("too many redirects")

// checkRedirect applies the policy to a redirect target. A target that
// would need approval (the prompt default) is refused unless it is on the
// host and port the call was approved for (the effective port: 80 or 443
// by scheme when the URL names none): a redirect cannot ask, so the model
// must fetch it directly; a private address the approval was not about is
// refused by the dialer.
func (t *Tool) checkRedirect(u, first *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("redirect to %s refused: only http:// and https:// URLs are supported", u.Redacted())
	}
	d := t.policy.Decide(u.Hostname())
	switch {
	case d.Verdict == netpolicy.Denied:
		return fmt.Errorf("redirect to %s refused: %s", u.Redacted(), d.Reason)
	case d.Verdict == netpolicy.NeedsApproval && !sameHostPort(u, first):
		return fmt.Errorf("redirect to %s refused: %s; fetch that URL directly so it can be approved", u.Redacted(), d.Reason)
	}
	return nil
}

// sameHostPort reports whether a and b name the same host on the same
// effective port.
func sameHostPort(a, b *url.URL) bool {
	ah, ap := netpolicy.HostPort(a)
	bh, bp := netpolicy.HostPort(b)
	return ah == bh && ap == bp
}

// sameOrigin is sameHostPort with the same scheme.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && sameHostPort(a, b)
}

// backendRedirects confines a search backend's client to its endpoint's
// origin: a redirect to another scheme, host or port is refused, so the
// key the backend sends in a header (Brave's X-Subscription-Token,
// Tavily's Authorization — which Go keeps across a change of port) never
// reaches a host the person did not configure.
func backendRedirects(c *http.Client, backend string) *http.Client {
	check := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; !sameOrigin(req.URL, first) {
			return fmt.Errorf("search backend %s redirected to %s, off its endpoint %s://%s: refused (a backend is "+
				"followed only within its endpoint's scheme, host and port, so its key stays there)",
				backend, req.URL.Redacted(), first.Scheme, first.Host)
		}
		return check(req, via)
	}
	return c
}

type userAgent struct {
	rt http.RoundTripper
	ua string
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("User-Agent") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", u.ua)
	}
	return u.rt.RoundTrip(r)
}
