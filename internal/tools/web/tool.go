// Package web is the deferred Web tool (docs/CONTRACT.md, Web): search the
// web through a pluggable backend chain, fetch a URL as readable Markdown,
// text or raw bytes, and wait for a local dev server. Every host it reaches
// goes through the network policy (internal/netpolicy), checked before the
// call to decide on approval and again at connect time.
package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// ToolName is the canonical name.
const ToolName = "Web"

// Actions are the Web actions in contract order (the table's).
var Actions = webActions.Names()

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
	return &Tool{opts: opts, policy: p, Spec: tools.Spec{
		ToolName: ToolName,
		Desc: "Search the web, fetch a URL, or wait for a local dev server: look up documentation online, read internet " +
			"web pages and HTTP APIs. action=\"search\": `query` (or a " +
			"`search_query` batch) with max_results (default 5, max 10), recency (day|week|month|year or days), " +
			"domains[] and locale; every response has a `receipt` saying which knobs the backend honoured. " +
			"action=\"fetch\": `url` (http/https) as readable Markdown (default), text or raw; JSON bodies can be " +
			"projected with `fields` (JSONPath); max_bytes default 1000000. Large pages come back as a handle " +
			"readable with handle_read. action=\"wait\": poll 127.0.0.1:`port` (or a loopback health `url`) until " +
			"it answers or timeout_ms passes. Private, loopback and link-local addresses need the user's explicit approval.",
		SchemaFunc: params.Schema,
		Caps:       []tools.Capability{tools.CapReadOnly, tools.CapNetwork},
		Deferred:   true,
		Approve:    tools.Auto,
		ReadOnly:   true,
	}}
}

// Prepare decodes the call once (docs/ARCHITECTURE.md §6.3) and decides
// its policy from the request: every action is read-only; a fetch (and a
// wait's health url) is Auto
// for a host the network policy permits, Required when it prompts, and
// Explicit — a person's yes to this one call in every posture, never an
// ordinary or --auto approval — when the host is (or resolves to) a
// private, loopback or link-local address [network] allow_private does
// not list; only search is parallel-safe (CONTRACT.md §6.10). A denied
// host stays Auto: the call runs and is refused with the policy's reason.
func (t *Tool) Prepare(raw json.RawMessage) (*tools.Call, error) {
	d, err := decodeInput(raw)
	if err != nil {
		return nil, err
	}
	in, err := request(d)
	if err != nil {
		return nil, err
	}
	p := tools.Policy{Approval: tools.Auto, ReadOnly: true, Parallel: in.action == "search"}
	var grant *netpolicy.Grant
	switch {
	case in.action == "fetch", in.action == "wait" && in.url != "":
		// A health url is an HTTP request to a path the model chose, as a
		// fetch is: the private-address rule holds for it too.
		grant = t.gate(in.url, &p)
	case in.action == "wait":
		if t.policy.Decide(waitHost(in)).Verdict == netpolicy.NeedsApproval {
			p.Approval = tools.Required
		}
	}
	return tools.NewCall(d.Input(), p, func(ctx context.Context, tc *tools.Context) (tools.Result, error) {
		res, err := t.run(ctx, tc, in, grant)
		return tools.Sized(res, err, tc, "read the rest of a fetched page with handle_read")
	}), nil
}

// gate sets p from the policy's verdict on fetching rawURL and returns
// what the approval, once given, admits: only the private addresses it
// named, for that host and port (a redirect elsewhere, or a name rebound
// to another address, is refused at connect time). Search reaches the
// configured backends only, whose hosts are checked when the search runs;
// wait reaches loopback only, its host through the lists and the default
// and a health url through this gate.
func (t *Tool) gate(rawURL string, p *tools.Policy) *netpolicy.Grant {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	host, port := netpolicy.HostPort(u)
	switch d := t.policy.Classify(ctx, host, port); {
	case len(d.Private) > 0:
		p.Approval, p.Reason = tools.Explicit, "fetch "+d.Reason
		return &netpolicy.Grant{Host: host, Port: port, Addrs: d.Private}
	case d.Verdict == netpolicy.NeedsApproval:
		p.Approval = tools.Required
	}
	return nil
}

// Execute decodes and runs one call (tools.Execute).
func (t *Tool) Execute(ctx context.Context, tc *tools.Context, in json.RawMessage) (tools.Result, error) {
	return tools.Execute(ctx, t, tc, in)
}

func (t *Tool) run(ctx context.Context, tc *tools.Context, in input, grant *netpolicy.Grant) (tools.Result, error) {
	switch in.action {
	case "search":
		return t.search(ctx, tc, in)
	case "fetch":
		return t.fetch(ctx, tc, in, grant)
	default:
		return t.wait(ctx, in)
	}
}
