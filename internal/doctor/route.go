package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// keyAndEndpoint reports where the route's key comes from and which host it
// goes to (CONTRACT.md §10.3), the other providers' keys and their hosts,
// the proxy in force, and whether the base URL answers.
func keyAndEndpoint(ctx context.Context, r *Report, o Options) {
	e := o.Effective
	if e == nil {
		return
	}
	r.add(keyCheck(e))
	for _, k := range e.Keys {
		r.add(Check{Name: "key " + k.Provider, Status: OK, Detail: fmt.Sprintf("%s → %s", k.Origin, k.Host),
			Data: map[string]any{"provider": k.Provider, "source": k.Origin, "host": k.Host}})
	}
	r.add(proxyCheck(e))
	if o.Reach == nil || e.BaseURL == "" {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	code, err := o.Reach(pctx, e.BaseURL)
	took := time.Since(start).Round(time.Millisecond)
	c := Check{Name: "base url", Status: OK, Data: map[string]any{"url": e.BaseURL, "status": code, "ms": took.Milliseconds()}}
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s did not answer: %v", e.BaseURL, err)
		c.Fix = "check the network, a proxy, or base_url / CODEWHALE_BASE_URL"
	} else {
		c.Detail = fmt.Sprintf("%s answered HTTP %d in %v", e.BaseURL, code, took)
	}
	r.add(c)
}

func keyCheck(e *Effective) Check {
	c := Check{Name: "api key", Status: OK, Detail: e.KeyOrigin + " → " + e.KeyHost,
		Data: map[string]any{"source": e.KeySource, "host": e.KeyHost, "withheld": e.Withheld}}
	switch {
	case e.Withheld:
		c.Detail = fmt.Sprintf("%s, bound to %s: not sent to %s (the base URL was moved there by %s)",
			e.KeyOrigin, e.KeyBoundTo, hostOf(e.BaseURL), e.BaseSource)
		c.Data["bound_to"] = e.KeyBoundTo
	case e.HasKey:
	case e.Loopback, e.KeyOptional:
		c.Detail = "none needed: " + hostOf(e.BaseURL) + " runs without one"
	default:
		c.Status, c.Detail = Fail, "no API key found for "+e.Provider
		c.Fix = fmt.Sprintf("run `codewhale auth set --provider %s`, or export its key variable", e.ProviderID)
	}
	return c
}

func proxyCheck(e *Effective) Check {
	c := Check{Name: "proxy", Status: OK, Data: map[string]any{"proxy": e.Proxy, "vars": e.ProxyVars}}
	switch {
	case e.Proxy != "":
		c.Detail = fmt.Sprintf("%s → %s via %s", hostOf(e.BaseURL), e.Proxy, strings.Join(e.ProxyVars, ", "))
	case len(e.ProxyVars) > 0:
		c.Detail = fmt.Sprintf("none for %s (direct; %s)", hostOf(e.BaseURL), strings.Join(e.ProxyVars, ", "))
	default:
		c.Detail = "none (direct connections; HTTPS_PROXY, HTTP_PROXY and NO_PROXY are not set)"
	}
	return c
}

// hostOf is the host[:port] of a URL, or the URL when it has none.
func hostOf(raw string) string {
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return raw
	}
	return s
}
