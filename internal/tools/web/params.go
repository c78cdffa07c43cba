package web

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is Web's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type, batchItem and webActions. The schema is open and flat: every action
// may carry every published key (a key an action does not read is
// type-checked and ignored), and an unknown key is ignored, as before the
// type existed.
type contract struct {
	Action         string    `json:"action" jsonschema:"Operation."`
	Query          string    `json:"query,omitempty" jsonschema:"search: what to look for (alias q)."`
	Q              string    `json:"q,omitempty" jsonschema:"search: alias of query."`
	SearchQuery    tools.Raw `json:"search_query,omitempty" jsonschema:"search: a batch of up to 5 queries, answered together."`
	MaxResults     int       `json:"max_results,omitempty" jsonschema:"search: results to return, default 5, max 10."`
	Recency        tools.Raw `json:"recency,omitempty" jsonschema:"search: day, week, month, year, or a number of days (1..3650)."`
	Domains        []string  `json:"domains,omitempty" jsonschema:"search: only results from these domains (e.g. go.dev)."`
	Locale         string    `json:"locale,omitempty" jsonschema:"search: language/region such as en-US or de-DE."`
	TimeoutMS      int       `json:"timeout_ms,omitempty" jsonschema:"search and fetch: default 15000, max 60000; wait: default 30000, max 120000."`
	URL            string    `json:"url,omitempty" jsonschema:"fetch: the http(s) URL; wait: an optional loopback health URL."`
	Format         string    `json:"format,omitempty" jsonschema:"fetch: markdown (default), text or raw."`
	MaxBytes       int       `json:"max_bytes,omitempty" jsonschema:"fetch: body bytes to read, default 1000000, 1..10485760."`
	Fields         []string  `json:"fields,omitempty" jsonschema:"fetch: JSONPath projections of a JSON body, e.g. $.items[*].name."`
	Host           string    `json:"host,omitempty" jsonschema:"wait: loopback host, default 127.0.0.1."`
	Port           int       `json:"port,omitempty" jsonschema:"wait: the port to poll."`
	PollIntervalMS int       `json:"poll_interval_ms,omitempty" jsonschema:"wait: default 250, 10..5000."`
}

// batchItem is one query of a search_query batch; a knob it leaves unset is
// the top level's (Query.inherit).
type batchItem struct {
	Q          string    `json:"q,omitempty" jsonschema:"The query."`
	Query      string    `json:"query,omitempty" jsonschema:"The query (alias of q)."`
	MaxResults int       `json:"max_results,omitempty" jsonschema:"Results for this query, default 5, max 10."`
	Recency    tools.Raw `json:"recency,omitempty" jsonschema:"search: day, week, month, year, or a number of days (1..3650)."`
	Domains    []string  `json:"domains,omitempty" jsonschema:"Only results from these domains."`
	Locale     string    `json:"locale,omitempty" jsonschema:"e.g. en-US."`
}

var (
	searchKeys = []string{"query", "q", "search_query", "max_results", "recency", "domains", "locale", "timeout_ms"}
	formats    = []string{"markdown", "text", "raw"}
	recencies  = []string{"day", "week", "month", "year"}
	nonNeg     = tools.Bound{Min: 0}
)

// webActions is the per-action table (CONTRACT.md §6.10) with Args.Action's
// texts (no default action). A search needs query or a search_query batch
// (OneOf: checked by the request), a wait port or url; a missing url keeps the wording
// "Input provided: action" (KeepField). Unknown keys are not refused.
var webActions = &tools.Actions{
	Field:     "action",
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "search", Allowed: searchKeys, Required: []string{"query", "search_query"}, OneOf: true},
		{Action: "fetch", Allowed: []string{"url", "timeout_ms", "format", "max_bytes", "fields"}, Required: []string{"url"}},
		{Action: "wait", Allowed: []string{"timeout_ms", "url", "host", "port", "poll_interval_ms"}, Required: []string{"port", "url"}, OneOf: true},
	},
	Aliases: []tools.Alias{{From: "q", To: "query"}},
}

var (
	params = tools.NewParams[contract](ToolName, tools.ParamOptions[contract]{Actions: webActions,
		Enums: map[string][]string{"format": formats}, Shape: shape,
		Bounds: map[string]tools.Bound{"max_results": nonNeg, "timeout_ms": nonNeg, "max_bytes": nonNeg,
			"port": nonNeg, "poll_interval_ms": nonNeg}})
	itemParams = tools.NewParams[batchItem](ToolName, tools.ParamOptions[batchItem]{Shape: shapeItem,
		Bounds: map[string]tools.Bound{"max_results": nonNeg}})
)

// shape publishes what a Go type cannot say: recency's two forms and the
// batch's items (batchItem's schema).
func shape(s *jsonschema.Schema, _ []string) {
	shapeRecency(s.Properties["recency"])
	item := new(jsonschema.Schema)
	b, _ := json.Marshal(itemParams.Schema())
	if err := json.Unmarshal(b, item); err != nil {
		panic(err) // our own schema; the schema test catches it
	}
	sq := s.Properties["search_query"]
	sq.Type, sq.Items = "array", item
}

func shapeItem(s *jsonschema.Schema, _ []string) { shapeRecency(s.Properties["recency"]) }

// shapeRecency: day, week, month, year, or a number of days.
func shapeRecency(r *jsonschema.Schema) {
	names := make([]any, len(recencies))
	for i, v := range recencies {
		names[i] = v
	}
	r.AnyOf = []*jsonschema.Schema{{Type: "string", Enum: names},
		{Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(3650.0)}}
}

// decodeInput is the one parse of a call. What the decoder's kinds let through
// but the schema does not (recency, the batch, an unknown format) is refused
// with the schema validator's text, the text such a call got before the
// type existed. The q alias is dropped unread when query is sent too, so its
// type is checked first: a wrongly typed q was always refused.
func decodeInput(raw json.RawMessage) (*tools.Decoded[contract], error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	if _, err := args.Action(ToolName, Actions, ""); err != nil {
		return nil, err // the action is refused first, as the decoder would
	}
	if _, _, err := args.String("q"); err != nil {
		return nil, err
	}
	d, err := params.DecodeArgs(args, nil)
	if err != nil {
		return nil, err
	}
	if d.Has("recency") || d.Has("search_query") || (d.Has("format") && !slices.Contains(formats, d.In.Format)) {
		sent := tools.Args{}
		for _, k := range validated {
			if d.Has(k) {
				sent[k] = d.Raw(k)
			}
		}
		if err := tools.Validate(ToolName, validatedSchema(), sent.Marshal()); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// validated are the properties the validator checks for the decoder; the
// decoder has read the others strictly, so they need no second look.
var validated = []string{"format", "recency", "search_query"}

// validatedSchema is the published schema narrowed to validated: the
// validator's texts name the same paths, and it compiles and walks less.
var validatedSchema = sync.OnceValue(func() map[string]any {
	props, _ := params.Schema()["properties"].(map[string]any)
	sub := map[string]any{}
	for _, k := range validated {
		sub[k] = props[k]
	}
	return map[string]any{"type": "object", "properties": sub}
})
