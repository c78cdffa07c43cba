package provider

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// DefaultBaseURL is DeepSeek's first-party endpoint (CONTRACT.md §10.1).
const DefaultBaseURL = "https://api.deepseek.com/beta"

// DefaultModel is the model used when nothing else is configured.
const DefaultModel = "deepseek-v4-pro"

var officialHosts = map[string]bool{"api.deepseek.com": true, "api.deepseeki.com": true}

// isVersionSegment reports whether a path segment is `beta` (any case) or
// `v` followed by one or more digits.
func isVersionSegment(seg string) bool {
	if strings.EqualFold(seg, "beta") {
		return true
	}
	if len(seg) < 2 || seg[0] != 'v' {
		return false
	}
	for _, c := range seg[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsLoopback reports whether the URL's host is a loopback address that may
// use plain http and needs no API key.
func IsLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch h := u.Hostname(); h {
	case "localhost", "0.0.0.0":
		return true
	default:
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback()
	}
}

// isOfficial reports whether base points at a first-party DeepSeek host.
func isOfficial(base string) bool {
	u, err := url.Parse(base)
	return err == nil && officialHosts[strings.ToLower(u.Hostname())]
}

// isOfficialBeta reports whether base is exactly an official /beta endpoint.
func isOfficialBeta(base string) bool {
	return isOfficial(base) && strings.HasSuffix(strings.ToLower(strings.TrimRight(base, "/")), "/beta")
}

// keepStrict reports whether `strict` may be sent on function definitions for
// this base: it is stripped on official hosts that do not end in /beta.
func keepStrict(base string) bool { return !isOfficial(base) || isOfficialBeta(base) }

// CheckBaseURL rejects malformed URLs and plain http to non-loopback hosts
// unless allowInsecure (CODEWHALE_ALLOW_INSECURE_HTTP, read by config).
func CheckBaseURL(base string, allowInsecure bool) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("invalid base URL %q: expected http(s)://host[:port][/path]", base)
	}
	if u.Scheme == "http" && !IsLoopback(base) && !allowInsecure {
		return fmt.Errorf("refusing plain http base URL %q for a non-loopback host; use https or set CODEWHALE_ALLOW_INSECURE_HTTP=1", base)
	}
	return nil
}

// ChatURL returns the chat/completions URL for base (CONTRACT.md §10.1). strict
// says whether any sent tool has strict=true; pathSuffix is the provider
// table's override of everything after the unversioned base.
func ChatURL(base string, strict bool, pathSuffix string) string {
	b := strings.TrimRight(base, "/")
	if strict && isOfficialBeta(b) {
		return b[:len(b)-len("/beta")] + "/beta/chat/completions"
	}
	last := b[strings.LastIndexByte(b, '/')+1:]
	hasScheme := strings.Contains(b, "://")
	if hasScheme && strings.Count(b, "/") < 3 {
		last = "" // no path at all
	}
	unversioned := b
	if isVersionSegment(last) {
		unversioned = b[:len(b)-len(last)-1]
	}
	if pathSuffix != "" {
		return unversioned + "/" + strings.TrimLeft(pathSuffix, "/")
	}
	if strings.EqualFold(last, "beta") {
		return unversioned + "/v1/chat/completions"
	}
	if isVersionSegment(last) {
		return b + "/chat/completions"
	}
	return b + "/v1/chat/completions"
}
