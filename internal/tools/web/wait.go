package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/codewhale/codewhale/internal/httptransport"
	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// wait polls a loopback dev server until it answers: a TCP connect to
// host:port, or, with a health url, an HTTP response below 500. It never
// reaches anything but this machine, and nothing the network policy
// denies (CONTRACT.md §6.10).
func (t *Tool) wait(ctx context.Context, in input) (tools.Result, error) {
	target, probe, err := waitProbe(in)
	if err != nil {
		return tools.Result{}, err
	}
	if d := t.policy.Decide(waitHost(in)); d.Verdict == netpolicy.Denied {
		return tools.Result{}, tools.PermissionDenied("%s", d.Reason)
	}
	start := time.Now()
	deadline := start.Add(in.timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	ticker := time.NewTicker(in.poll)
	defer ticker.Stop()
	attempts := 0
	var last string
	for {
		attempts++
		detail, ok := probe(ctx)
		if ok {
			return waitResult(true, target, attempts, time.Since(start), detail), nil
		}
		if time.Until(deadline) > 5*time.Millisecond || last == "" {
			last = detail // a probe cut short by the deadline says less than the one before it
		}
		select {
		case <-ctx.Done():
			if time.Now().Before(deadline) {
				return tools.Result{}, tools.Cancelled("Wait canceled before " + target + " answered")
			}
			return waitResult(false, target, attempts, time.Since(start), last), nil
		case <-ticker.C:
		}
	}
}

func waitResult(ready bool, target string, attempts int, took time.Duration, detail string) tools.Result {
	body, _ := json.Marshal(map[string]any{"ready": ready, "target": target, "attempts": attempts,
		"elapsed_ms": took.Milliseconds(), "detail": detail})
	res := tools.Result{Content: string(body), Success: ready}
	res.Metadata = map[string]any{"ready": ready, "target": target, "attempts": attempts}
	return res
}

// waitHost is the host a wait reaches: its health url's, else host
// (127.0.0.1 when none is given).
func waitHost(in input) string {
	if in.url != "" {
		if u, err := url.Parse(in.url); err == nil {
			return u.Hostname()
		}
	}
	if in.host == "" {
		return "127.0.0.1"
	}
	return in.host
}

// waitProbe returns the target's label and a probe that reports whether it
// answered, refusing anything that is not loopback.
func waitProbe(in input) (string, func(context.Context) (string, bool), error) {
	if in.url != "" {
		u, err := url.Parse(in.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return "", nil, tools.InvalidInput("only http:// and https:// URLs are supported")
		}
		if !netpolicy.IsLoopbackHost(u.Hostname()) {
			return "", nil, tools.InvalidInput("wait only polls this machine (127.0.0.1, ::1, localhost); %s is not loopback — use fetch for remote URLs", u.Hostname())
		}
		c := &http.Client{Timeout: 2 * time.Second, Transport: httptransport.New(httptransport.Options{Dial: loopbackDial, Direct: true}),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		return u.Redacted(), func(ctx context.Context) (string, bool) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
			resp, err := c.Do(req)
			if err != nil {
				return err.Error(), false
			}
			resp.Body.Close()
			return fmt.Sprintf("HTTP %d", resp.StatusCode), resp.StatusCode < 500
		}, nil
	}
	host := waitHost(in)
	if !netpolicy.IsLoopbackHost(host) {
		return "", nil, tools.InvalidInput("wait only polls this machine (127.0.0.1, ::1, localhost); %s is not loopback", host)
	}
	if in.port < 1 || in.port > 65535 {
		return "", nil, tools.InvalidInput("port must be between 1 and 65535; got %d", in.port)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(in.port))
	return addr, func(ctx context.Context) (string, bool) {
		c, err := loopbackDial(ctx, "tcp", addr)
		if err != nil {
			return err.Error(), false
		}
		c.Close()
		return "connected", true
	}, nil
}

// loopbackDial connects only to loopback addresses, whatever a name
// resolves to.
func loopbackDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	for _, ip := range ips {
		if ip.Unmap().IsLoopback() {
			return d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		}
	}
	return nil, fmt.Errorf("%s does not resolve to a loopback address", host)
}
