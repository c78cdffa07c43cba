package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// SearchConfig is the [search] table: the selected backend, the ones tried
// after it when it fails, and each backend's endpoint and key.
type SearchConfig struct {
	Provider string              // duckduckgo (default), searxng, tavily, brave
	Fallback []string            // nil: duckduckgo after any other provider
	Backends map[string]Endpoint // by backend name
}

// Endpoint is one backend's configuration. A BaseURL the user configured
// counts as an explicit allow of its host (a self-hosted SearXNG on
// localhost works), but the deny list still applies.
type Endpoint struct {
	BaseURL string
	APIKey  string
}

// Result is one search hit.
type Result struct {
	Rank      int    `json:"rank"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	Snippet   string `json:"snippet,omitempty"`
	Published string `json:"published,omitempty"`
	Domain    string `json:"domain"`
}

// Honored says which requested knobs the answer really respects.
type Honored struct {
	MaxResults bool `json:"max_results"`
	Recency    bool `json:"recency"`
	Domains    bool `json:"domains"`
	Locale     bool `json:"locale"`
}

// Degraded is one way the answer fell short of the request.
type Degraded struct {
	Kind    string `json:"kind"` // knob_ignored, post_filtered, backend_unavailable, backend_fallback, challenge_detected, no_usable_results
	Knob    string `json:"knob,omitempty"`
	Backend string `json:"backend,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Receipt is the honesty record every search response carries.
type Receipt struct {
	Backend       string     `json:"backend"`
	BackendDetail string     `json:"backend_detail,omitempty"`
	Requested     Query      `json:"requested"`
	Honored       Honored    `json:"honored"`
	Degraded      []Degraded `json:"degraded"`
	LatencyMS     int64      `json:"latency_ms"`
}

// Response is the answer to one query.
type Response struct {
	Query   string   `json:"query"`
	Count   int      `json:"count"`
	Results []Result `json:"results"`
	Warning string   `json:"warning,omitempty"`
	Receipt Receipt  `json:"receipt"`
}

// answer is what one backend returns before the shared post-processing.
type answer struct {
	results []Result
	// native knobs the backend applied itself for this query
	recency, domains, locale bool
	challenge                bool
}

// backend is one search engine adapter.
type backend interface {
	name() string
	// ready returns why the backend cannot run with its configuration, or "".
	ready() string
	endpoint() string
	search(ctx context.Context, c *http.Client, q Query) (answer, error)
}

func newBackend(name string, ep Endpoint) (backend, error) {
	switch name {
	case "", "duckduckgo", "ddg":
		return duckduckgo{ep: ep}, nil
	case "searxng":
		return searxng{ep: ep}, nil
	case "tavily":
		return tavily{ep: ep}, nil
	case "brave":
		return brave{ep: ep}, nil
	}
	return nil, fmt.Errorf("unknown search provider %q (supported: duckduckgo, searxng, tavily, brave)", name)
}

// chain is the configured provider followed by its fallbacks.
func (c SearchConfig) chain() ([]backend, error) {
	first := strings.ToLower(strings.TrimSpace(c.Provider))
	if first == "" || first == "ddg" {
		first = "duckduckgo"
	}
	names := []string{first}
	fallback := c.Fallback
	if fallback == nil && first != "duckduckgo" {
		fallback = []string{"duckduckgo"}
	}
	for _, n := range fallback {
		n = strings.ToLower(strings.TrimSpace(n))
		if n != "" && !contains(names, n) {
			names = append(names, n)
		}
	}
	var out []backend
	for i, n := range names {
		b, err := newBackend(n, c.Backends[n])
		if err != nil {
			return nil, err
		}
		if why := b.ready(); why != "" {
			if i == 0 {
				return nil, fmt.Errorf("web search is not configured: %s", why)
			}
			continue // an unconfigured fallback is skipped, and the receipt says so if it mattered
		}
		out = append(out, b)
	}
	return out, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (t *Tool) search(ctx context.Context, tc *tools.Context, in input) (tools.Result, error) {
	chain, err := t.opts.Search.chain()
	if err != nil {
		return tools.Result{}, tools.NotAvailable("%v. Set [search] provider/base_url/api_key in config.toml "+
			"(or CODEWHALE_SEARCH_BASE_URL, DEEPSEEK_SEARCH_PROVIDER, DEEPSEEK_SEARCH_API_KEY)", err)
	}
	ctx, cancel := context.WithTimeout(ctx, in.timeout)
	defer cancel()
	var out []Response
	for _, q := range in.queries {
		resp, err := t.searchOne(ctx, chain, q)
		if err != nil {
			return tools.Result{}, err
		}
		out = append(out, resp)
	}
	var body []byte
	if len(out) == 1 {
		body, _ = json.Marshal(out[0])
	} else {
		body, _ = json.Marshal(map[string]any{"searches": out})
	}
	res := tools.OK(string(body))
	res.Metadata = map[string]any{"backend": out[0].Receipt.Backend, "results": out[0].Count, "queries": len(out)}
	return res, nil
}

// searchOne walks the chain until a backend answers with results.
func (t *Tool) searchOne(ctx context.Context, chain []backend, q Query) (Response, error) {
	start := time.Now()
	var degraded []Degraded
	var last *Response
	var tried []string
	for i, b := range chain {
		if ctx.Err() != nil {
			break
		}
		if i > 0 {
			degraded = append(degraded, Degraded{Kind: "backend_fallback", From: chain[i-1].name(), To: b.name()})
		}
		tried = append(tried, b.name())
		client, host, err := t.backendClient(b)
		if err != nil {
			return Response{}, tools.PermissionDenied("%v", err)
		}
		a, err := b.search(ctx, client, q)
		t.policy.Audit.Record(netpolicy.Entry{Tool: ToolName, Action: "search", Host: host, Decision: "allow", Error: errText(err)})
		switch {
		case err != nil:
			degraded = append(degraded, Degraded{Kind: "backend_unavailable", Backend: b.name(), Detail: shorten(err.Error(), 200)})
			continue
		case a.challenge:
			degraded = append(degraded, Degraded{Kind: "challenge_detected", Backend: b.name()})
			continue
		}
		resp := finish(b, host, q, a)
		if len(resp.Results) > 0 {
			resp.Receipt.Degraded = append(degraded, resp.Receipt.Degraded...)
			resp.Receipt.LatencyMS = time.Since(start).Milliseconds()
			resp.Warning = warning(resp.Receipt.Degraded)
			return resp, nil
		}
		degraded = append(degraded, Degraded{Kind: "no_usable_results", Backend: b.name()})
		last = &resp
	}
	if last != nil {
		last.Receipt.Degraded = append(degraded, last.Receipt.Degraded...)
		last.Receipt.LatencyMS = time.Since(start).Milliseconds()
		last.Warning = warning(last.Receipt.Degraded)
		return *last, nil
	}
	if ctx.Err() != nil {
		return Response{}, tools.ExecutionFailed("web search timed out after trying %s", strings.Join(tried, ", "))
	}
	var details []string
	for _, d := range degraded {
		if d.Backend != "" {
			details = append(details, d.Backend+": "+d.Kind+detailSuffix(d.Detail))
		}
	}
	return Response{}, tools.ExecutionFailed("web search backends unavailable (%s)", strings.Join(details, "; "))
}

func detailSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " — " + s
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// backendClient builds the HTTP client for one backend and checks its host
// against the policy first: a denial fails the search closed instead of
// falling through to the next backend.
func (t *Tool) backendClient(b backend) (*http.Client, string, error) {
	u, err := url.Parse(b.endpoint())
	if err != nil || u.Hostname() == "" {
		return nil, "", fmt.Errorf("search backend %s has an invalid endpoint %q", b.name(), b.endpoint())
	}
	host := u.Hostname()
	d := t.policy.Decide(host)
	configured := t.opts.Search.Backends[b.name()].BaseURL != ""
	if d.Verdict == netpolicy.Denied && !(configured && !denyListed(t.policy, host)) {
		return nil, host, errors.New(d.Reason)
	}
	if d.Verdict == netpolicy.NeedsApproval && !configured {
		return nil, host, fmt.Errorf("%s; web search cannot ask mid-call — add %s to [network] allow", d.Reason, host)
	}
	// The person configured this endpoint: its own address may be private
	// (a local SearXNG). A backend only allow-listed gets no such grant.
	var grant *netpolicy.Grant
	if configured {
		grant = netpolicy.GrantURL(u)
	}
	return backendRedirects(t.client(grant, 0), b.name()), host, nil
}

func denyListed(p *netpolicy.Policy, host string) bool {
	for _, pat := range p.Deny {
		if netpolicy.Match(pat, host) {
			return true
		}
	}
	return false
}

// finish cuts to max_results, post-filters domains, ranks, and writes the
// receipt's honoured knobs.
func finish(b backend, host string, q Query, a answer) Response {
	r := Receipt{Backend: b.name(), BackendDetail: host, Requested: q, Degraded: []Degraded{}}
	results := a.results
	if len(q.Domains) > 0 {
		kept := results[:0:0]
		for _, res := range results {
			if inDomains(res.Domain, q.Domains) {
				kept = append(kept, res)
			}
		}
		if len(kept) < len(results) || !a.domains {
			r.Degraded = append(r.Degraded, Degraded{Kind: "post_filtered", Knob: "domains"})
		}
		results = kept
		r.Honored.Domains = true // post-filtering guarantees it either way
	}
	if len(results) > q.MaxResults {
		results = results[:q.MaxResults]
	}
	r.Honored.MaxResults = true
	if q.Recency != "" {
		r.Honored.Recency = a.recency
		if !a.recency {
			r.Degraded = append(r.Degraded, Degraded{Kind: "knob_ignored", Knob: "recency"})
		}
	}
	if q.Locale != "" {
		r.Honored.Locale = a.locale
		if !a.locale {
			r.Degraded = append(r.Degraded, Degraded{Kind: "knob_ignored", Knob: "locale"})
		}
	}
	for i := range results {
		results[i].Rank = i + 1
	}
	if results == nil {
		results = []Result{}
	}
	return Response{Query: q.Query, Count: len(results), Results: results, Receipt: r}
}

func inDomains(host string, domains []string) bool {
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func warning(ds []Degraded) string {
	var parts []string
	for _, d := range ds {
		switch d.Kind {
		case "knob_ignored":
			parts = append(parts, d.Knob+" filter was not enforced by this backend")
		case "post_filtered":
			parts = append(parts, "results were post-filtered by "+d.Knob)
		case "backend_unavailable":
			parts = append(parts, d.Backend+" was unavailable")
		case "backend_fallback":
			parts = append(parts, "tried "+d.To+" after "+d.From)
		case "challenge_detected":
			parts = append(parts, d.Backend+" returned a bot challenge")
		case "no_usable_results":
			parts = append(parts, d.Backend+" returned no usable results")
		}
	}
	return strings.Join(parts, "; ")
}

func newResult(title, link, snippet, published string) Result {
	r := Result{Title: collapse(title), URL: strings.TrimSpace(link), Snippet: collapse(snippet), Published: published}
	if u, err := url.Parse(r.URL); err == nil {
		r.Domain = strings.ToLower(u.Hostname())
	}
	return r
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
