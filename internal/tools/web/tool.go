// Package web is the deferred Web tool (docs/CONTRACT.md, Web): search the
// web through a pluggable backend chain, fetch a URL as readable Markdown,
// text or raw bytes, and wait for a local dev server. Every host it reaches
// goes through the network policy (internal/netpolicy), checked before the
// call to decide on approval and again at connect time.
package web

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// ToolName is the canonical name.
const ToolName = "Web"

// Actions are the Web actions in contract order.
var Actions = []string{"search", "fetch", "wait"}

// Options configure the tool.
type Options struct {
	// Policy is the network policy; nil allows public hosts and holds
	// private ones for approval (the zero Policy).
	Policy *netpolicy.Policy
	// Search configures the backend chain.
	Search SearchConfig
	// Handles keeps large pages out of the transcript; nil keeps them inline
	// (cut to the budget).
	Handles *handles.Store
	// Transport, when set, replaces the policy-checking transport (tests of
	// parsing only; never set in the product).
	Transport http.RoundTripper
	// PDFToText is the pdftotext binary; "" looks it up on PATH on first use.
	PDFToText string
	// UserAgent is sent with every request.
	UserAgent string
}

// Tool is Web.
type Tool struct {
	tools.Spec
	opts   Options
	policy *netpolicy.Policy

	mu       sync.Mutex
	approved map[[32]byte]bool // inputs whose approval was required (private or prompted hosts)
}

// New returns the Web tool (deferred: found through tool_search).
func New(opts Options) *Tool {
	p := opts.Policy
	if p == nil {
		p = &netpolicy.Policy{}
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "Mozilla/5.0 (compatible; codewhale; +https://github.com/codewhale/codewhale)"
	}
	return &Tool{opts: opts, policy: p, approved: map[[32]byte]bool{}, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "Search the web, fetch a URL, or wait for a local dev server: look up documentation online, read internet " +
			"web pages and HTTP APIs. action=\"search\": `query` (or a " +
			"`search_query` batch) with max_results (default 5, max 10), recency (day|week|month|year or days), " +
			"domains[] and locale; every response has a `receipt` saying which knobs the backend honoured. " +
			"action=\"fetch\": `url` (http/https) as readable Markdown (default), text or raw; JSON bodies can be " +
			"projected with `fields` (JSONPath); max_bytes default 1000000. Large pages come back as a handle " +
			"readable with handle_read. action=\"wait\": poll 127.0.0.1:`port` (or a loopback health `url`) until " +
			"it answers or timeout_ms passes. Private and loopback addresses need approval.",
		SchemaFunc: schema,
		Caps:       []tools.Capability{tools.CapReadOnly, tools.CapNetwork},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
	}}
}

var schema = sync.OnceValue(func() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	integer := func(d string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": d}
	}
	strs := func(d string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	}
	recency := map[string]any{"description": "search: day, week, month, year, or a number of days (1..3650).",
		"anyOf": []any{map[string]any{"type": "string", "enum": []any{"day", "week", "month", "year"}},
			map[string]any{"type": "integer", "minimum": 1, "maximum": 3650}}}
	item := map[string]any{"type": "object", "properties": map[string]any{
		"q": str("The query."), "query": str("The query (alias of q)."),
		"max_results": integer("Results for this query, default 5, max 10."),
		"recency":     recency, "domains": strs("Only results from these domains."), "locale": str("e.g. en-US."),
	}}
	return map[string]any{
		"type":     "object",
		"required": []any{"action"},
		"properties": map[string]any{
			"action":           map[string]any{"type": "string", "enum": []any{"search", "fetch", "wait"}, "description": "Operation."},
			"query":            str("search: what to look for (alias q)."),
			"q":                str("search: alias of query."),
			"search_query":     map[string]any{"type": "array", "items": item, "description": "search: a batch of up to 5 queries, answered together."},
			"max_results":      integer("search: results to return, default 5, max 10."),
			"recency":          recency,
			"domains":          strs("search: only results from these domains (e.g. go.dev)."),
			"locale":           str("search: language/region such as en-US or de-DE."),
			"timeout_ms":       integer("search and fetch: default 15000, max 60000; wait: default 30000, max 120000."),
			"url":              str("fetch: the http(s) URL; wait: an optional loopback health URL."),
			"format":           map[string]any{"type": "string", "enum": []any{"markdown", "text", "raw"}, "description": "fetch: markdown (default), text or raw."},
			"max_bytes":        integer("fetch: body bytes to read, default 1000000, 1..10485760."),
			"fields":           strs("fetch: JSONPath projections of a JSON body, e.g. $.items[*].name."),
			"host":             str("wait: loopback host, default 127.0.0.1."),
			"port":             integer("wait: the port to poll."),
			"poll_interval_ms": integer("wait: default 250, 10..5000."),
		},
	}
})

// NormalizeInput gives the contract's exact messages for a missing or
// unknown action and folds `q` into `query`.
func (t *Tool) NormalizeInput(raw json.RawMessage) (json.RawMessage, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if _, err := args.Action(ToolName, Actions, ""); err != nil {
		return nil, err
	}
	if q, ok := args["q"]; ok && !args.Has("query") {
		args["query"] = q
		delete(args, "q")
	}
	return args.Marshal(), nil
}

// ParallelSafeFor is true for search only (CONTRACT.md §6.10: only search is
// parallel-safe).
func (t *Tool) ParallelSafeFor(raw json.RawMessage) bool {
	return tools.PeekAction(raw, "search") == "search" && t.ApprovalFor(raw) == tools.Auto
}

// ApprovalFor is Auto for public hosts the policy permits, Required when the
// policy prompts or a fetched host is (or resolves to) a private address.
// Denied hosts stay Auto: the call runs and is refused with the reason.
func (t *Tool) ApprovalFor(raw json.RawMessage) tools.Approval {
	reason := t.approvalReason(raw)
	if reason == "" {
		return tools.Auto
	}
	t.mu.Lock()
	t.approved[sha256.Sum256(raw)] = true
	t.mu.Unlock()
	return tools.Required
}

// ApprovalReason says why a call needs approval ("" when it does not).
func (t *Tool) ApprovalReason(raw json.RawMessage) string { return t.approvalReason(raw) }

func (t *Tool) approvalReason(raw json.RawMessage) string {
	var probe struct {
		Action string `json:"action"`
		URL    string `json:"url"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.Action != "fetch" {
		// Search reaches the configured backends only; their hosts are
		// checked when the search runs. Wait is loopback-only by design.
		return ""
	}
	u, err := url.Parse(probe.URL)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	d := t.policy.Classify(ctx, u.Hostname())
	if d.Verdict == netpolicy.NeedsApproval {
		return d.Reason
	}
	return ""
}

// privateApproved reports whether raw's approval was required (and, since
// Execute runs, given): the call may then reach private addresses.
func (t *Tool) privateApproved(raw json.RawMessage) bool {
	key := sha256.Sum256(raw)
	t.mu.Lock()
	defer t.mu.Unlock()
	ok := t.approved[key]
	delete(t.approved, key)
	return ok
}

// Execute runs one Web action and sizes its result to the call's budget
// (tools.Sized), saying how to get what was cut.
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	res, err := t.execute(ctx, tc, in)
	return tools.Sized(res, err, tc, "read the rest of a fetched page with handle_read")
}

func (t *Tool) execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	in, err := parseInput(raw)
	if err != nil {
		return tools.Result{}, err
	}
	switch in.action {
	case "search":
		return t.search(ctx, tc, in)
	case "fetch":
		return t.fetch(ctx, tc, in, t.privateApproved(raw))
	default:
		return t.wait(ctx, in)
	}
}
