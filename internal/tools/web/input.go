package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// Bounds of the Web contract.
const (
	defaultResults     = 5
	maxResults         = 10
	maxBatch           = 5
	defaultTimeout     = 15 * time.Second
	maxTimeout         = 60 * time.Second
	defaultWaitTimeout = 30 * time.Second
	maxWaitTimeout     = 120 * time.Second
	defaultMaxBytes    = 1_000_000
	hardMaxBytes       = 10 << 20
	defaultPoll        = 250 * time.Millisecond
)

// Query is one search request after normalisation.
type Query struct {
	Query      string   `json:"query"`
	MaxResults int      `json:"max_results"`
	Recency    string   `json:"recency,omitempty"` // day, week, month, year, or "<n>d"
	Days       int      `json:"-"`                 // recency in days (0 = none)
	Domains    []string `json:"domains,omitempty"`
	Locale     string   `json:"locale,omitempty"`
}

type input struct {
	action  string
	queries []Query
	timeout time.Duration

	url      string
	format   string
	maxBytes int
	fields   []string

	host string
	port int
	poll time.Duration
}

// request builds the action's request from the decoded call: defaults,
// clamps and the rules the schema cannot state, with the contract's texts.
func request(d *tools.Decoded[contract]) (input, error) {
	in := input{action: d.Action}
	var err error
	switch d.Action {
	case "search":
		err = in.searchRequest(d)
	case "fetch":
		err = in.fetchRequest(d)
	default:
		err = in.waitRequest(d)
	}
	return in, err
}

func (in *input) searchRequest(d *tools.Decoded[contract]) error {
	in.timeout = timeout(d.In.TimeoutMS, defaultTimeout, maxTimeout)
	c := d.In
	base := knobs(Query{Query: strings.TrimSpace(c.Query)}, d.Has("max_results"), c.MaxResults, c.Recency, c.Domains, c.Locale)
	base = base.inherit(Query{})
	if d.Has("search_query") {
		var items []json.RawMessage
		if err := json.Unmarshal(c.SearchQuery, &items); err != nil {
			return tools.InvalidInput("field 'search_query' must be an array of {q, max_results, recency, domains, locale} objects; got %s. Received: %s",
				tools.JSONType(json.RawMessage(c.SearchQuery)), tools.Preview(json.RawMessage(c.SearchQuery)))
		}
		if len(items) > maxBatch {
			return tools.InvalidInput("search_query holds %d queries; at most %d are answered together", len(items), maxBatch)
		}
		for i, raw := range items {
			q, err := batchQuery(raw, fmt.Sprintf("search_query[%d].", i))
			if err != nil {
				return err
			}
			if q.Query == "" {
				return tools.InvalidInput("search_query[%d] has no `q`", i)
			}
			in.queries = append(in.queries, q.inherit(base))
		}
	}
	if base.Query != "" {
		in.queries = append([]Query{base}, in.queries...)
	}
	if len(in.queries) == 0 {
		return d.Missing("query")
	}
	return nil
}

// batchQuery decodes one batch item (already checked against its schema);
// prefix names its fields in errors. query wins over q unless it is blank.
func batchQuery(raw json.RawMessage, prefix string) (Query, error) {
	d, err := itemParams.Decode(raw)
	if err != nil {
		return Query{}, prefixed(err, prefix)
	}
	q := Query{Query: strings.TrimSpace(d.In.Query)}
	if q.Query == "" {
		q.Query = strings.TrimSpace(d.In.Q)
	}
	return knobs(q, d.Has("max_results"), d.In.MaxResults, d.In.Recency, d.In.Domains, d.In.Locale), nil
}

// knobs sets one query's knobs from their decoded values.
func knobs(q Query, hasMax bool, n int, recency tools.Raw, domains []string, locale string) Query {
	if hasMax {
		q.MaxResults = min(max(n, 1), maxResults)
	}
	q.Recency, q.Days = recencyOf(recency)
	q.Domains = normalizeDomains(domains)
	q.Locale = strings.TrimSpace(locale)
	return q
}

// inherit fills the knobs a batch item leaves unset from the top level.
func (q Query) inherit(base Query) Query {
	if q.MaxResults == 0 {
		q.MaxResults = base.MaxResults
	}
	if q.Recency == "" {
		q.Recency, q.Days = base.Recency, base.Days
	}
	if q.Domains == nil {
		q.Domains = base.Domains
	}
	if q.Locale == "" {
		q.Locale = base.Locale
	}
	if q.MaxResults == 0 {
		q.MaxResults = defaultResults
	}
	return q
}

func prefixed(err error, prefix string) error {
	if te, ok := err.(*tools.Error); ok && prefix != "" {
		c := *te
		c.Msg = prefix + c.Msg
		return &c
	}
	return err
}

// recencyOf reads a recency the schema accepted: day, week, month, year
// or a number of days (1..3650); absent is none.
func recencyOf(v tools.Raw) (string, int) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		switch s {
		case "day":
			return s, 1
		case "week":
			return s, 7
		case "month":
			return s, 30
		case "year":
			return s, 365
		}
		return "", 0
	}
	var f float64 // an integer the schema accepted, possibly spelled 7.0
	if json.Unmarshal(v, &f) == nil && f >= 1 {
		return fmt.Sprintf("%dd", int(f)), int(f)
	}
	return "", 0
}

func normalizeDomains(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		d = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
		if i := strings.IndexByte(d, '/'); i >= 0 {
			d = d[:i]
		}
		d = strings.TrimPrefix(strings.TrimSuffix(d, "."), "www.")
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// timeout is timeout_ms as a duration: 0 (or absent) is def, at most hi.
func timeout(ms int, def, hi time.Duration) time.Duration {
	if ms <= 0 {
		return def
	}
	return min(time.Duration(ms)*time.Millisecond, hi)
}

func (in *input) fetchRequest(d *tools.Decoded[contract]) error {
	in.url = strings.TrimSpace(d.In.URL)
	if !strings.HasPrefix(strings.ToLower(in.url), "http://") && !strings.HasPrefix(strings.ToLower(in.url), "https://") {
		return tools.InvalidInput("only http:// and https:// URLs are supported")
	}
	in.timeout = timeout(d.In.TimeoutMS, defaultTimeout, maxTimeout)
	in.format = d.In.Format // one of formats (decode checked it) or absent
	if in.format == "" {
		in.format = "markdown"
	}
	in.maxBytes = defaultMaxBytes
	if d.Has("max_bytes") {
		in.maxBytes = min(max(d.In.MaxBytes, 1), hardMaxBytes)
	}
	in.fields = d.In.Fields
	return nil
}

func (in *input) waitRequest(d *tools.Decoded[contract]) error {
	in.timeout = timeout(d.In.TimeoutMS, defaultWaitTimeout, maxWaitTimeout)
	in.url, in.host, in.port = d.In.URL, d.In.Host, d.In.Port
	in.poll = defaultPoll
	if d.Has("poll_interval_ms") {
		in.poll = min(max(time.Duration(d.In.PollIntervalMS)*time.Millisecond, 10*time.Millisecond), 5*time.Second)
	}
	if in.url == "" && in.port == 0 {
		return tools.InvalidInput("wait needs `port` (with optional `host`, default 127.0.0.1) or a loopback health `url`")
	}
	return nil
}
