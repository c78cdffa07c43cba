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

func parseInput(raw json.RawMessage) (input, error) {
	args, err := tools.ParseArgs(raw)
	if err != nil {
		return input{}, err
	}
	var in input
	if in.action, err = args.Action(ToolName, Actions, ""); err != nil {
		return input{}, err
	}
	switch in.action {
	case "search":
		err = in.parseSearch(args)
	case "fetch":
		err = in.parseFetch(args)
	default:
		err = in.parseWait(args)
	}
	return in, err
}

func (in *input) parseSearch(args tools.Args) error {
	var err error
	if in.timeout, err = timeoutArg(args, defaultTimeout, maxTimeout); err != nil {
		return err
	}
	base, err := queryFrom(args, "")
	if err != nil {
		return err
	}
	base = base.inherit(Query{})
	if raw, ok := args["search_query"]; ok {
		var items []map[string]json.RawMessage
		if tools.JSONType(raw) != "array" || json.Unmarshal(raw, &items) != nil {
			return tools.InvalidInput("field 'search_query' must be an array of {q, max_results, recency, domains, locale} objects; got %s. Received: %s",
				tools.JSONType(raw), tools.Preview(raw))
		}
		if len(items) > maxBatch {
			return tools.InvalidInput("search_query holds %d queries; at most %d are answered together", len(items), maxBatch)
		}
		for i, it := range items {
			q, err := queryFrom(tools.Args(it), fmt.Sprintf("search_query[%d].", i))
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
		return args.Missing("query")
	}
	return nil
}

// queryFrom reads one query's knobs; prefix names the fields in errors.
func queryFrom(args tools.Args, prefix string) (Query, error) {
	var q Query
	for _, k := range []string{"query", "q"} {
		s, ok, err := args.String(k)
		if err != nil {
			return q, prefixed(err, prefix)
		}
		if ok && q.Query == "" {
			q.Query = strings.TrimSpace(s)
		}
	}
	n, ok, err := args.Uint("max_results")
	if err != nil {
		return q, prefixed(err, prefix)
	}
	if ok {
		q.MaxResults = min(max(n, 1), maxResults)
	}
	if q.Recency, q.Days, err = recencyArg(args); err != nil {
		return q, prefixed(err, prefix)
	}
	if q.Domains, _, err = args.StringList("domains"); err != nil {
		return q, prefixed(err, prefix)
	}
	q.Domains = normalizeDomains(q.Domains)
	if loc, _, err := args.String("locale"); err != nil {
		return q, prefixed(err, prefix)
	} else {
		q.Locale = strings.TrimSpace(loc)
	}
	return q, nil
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

func recencyArg(args tools.Args) (string, int, error) {
	v, ok := args["recency"]
	if !ok {
		return "", 0, nil
	}
	switch tools.JSONType(v) {
	case "string":
		var s string
		_ = json.Unmarshal(v, &s)
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "day", "d", "24h":
			return "day", 1, nil
		case "week", "w":
			return "week", 7, nil
		case "month", "m":
			return "month", 30, nil
		case "year", "y":
			return "year", 365, nil
		}
	case "number":
		n, _, err := args.Uint("recency")
		if err == nil && n >= 1 && n <= 3650 {
			return fmt.Sprintf("%dd", n), n, nil
		}
	}
	return "", 0, tools.InvalidInput("field 'recency' must be day, week, month, year or a number of days from 1 to 3650; got %s", tools.Preview(v))
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

func timeoutArg(args tools.Args, def, hi time.Duration) (time.Duration, error) {
	ms, ok, err := args.Uint("timeout_ms")
	if err != nil || !ok || ms == 0 {
		return def, err
	}
	return min(time.Duration(ms)*time.Millisecond, hi), nil
}

func (in *input) parseFetch(args tools.Args) error {
	var err error
	if in.url, err = args.RequireString("url"); err != nil {
		return err
	}
	in.url = strings.TrimSpace(in.url)
	if !strings.HasPrefix(strings.ToLower(in.url), "http://") && !strings.HasPrefix(strings.ToLower(in.url), "https://") {
		return tools.InvalidInput("only http:// and https:// URLs are supported")
	}
	if in.timeout, err = timeoutArg(args, defaultTimeout, maxTimeout); err != nil {
		return err
	}
	f, _, err := args.String("format")
	if err != nil {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "", "markdown", "md":
		in.format = "markdown"
	case "text", "txt", "plain":
		in.format = "text"
	case "raw", "html", "bytes":
		in.format = "raw"
	default:
		return tools.InvalidInput("unknown format `%s` (allowed: markdown, text, raw)", f)
	}
	in.maxBytes = defaultMaxBytes
	if n, ok, err := args.Uint("max_bytes"); err != nil {
		return err
	} else if ok {
		in.maxBytes = min(max(n, 1), hardMaxBytes)
	}
	in.fields, _, err = args.StringList("fields")
	return err
}

func (in *input) parseWait(args tools.Args) error {
	var err error
	if in.timeout, err = timeoutArg(args, defaultWaitTimeout, maxWaitTimeout); err != nil {
		return err
	}
	if in.url, _, err = args.String("url"); err != nil {
		return err
	}
	if in.host, _, err = args.String("host"); err != nil {
		return err
	}
	if in.port, _, err = args.Uint("port"); err != nil {
		return err
	}
	in.poll = defaultPoll
	if ms, ok, err := args.Uint("poll_interval_ms"); err != nil {
		return err
	} else if ok {
		in.poll = min(max(time.Duration(ms)*time.Millisecond, 10*time.Millisecond), 5*time.Second)
	}
	if in.url == "" && in.port == 0 {
		return tools.InvalidInput("wait needs `port` (with optional `host`, default 127.0.0.1) or a loopback health `url`")
	}
	return nil
}
