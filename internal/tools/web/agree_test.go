package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/tools"
	"github.com/codewhale/codewhale/internal/tools/paramtest"
)

// Web's published schema, per-action table and decoder agree. The URL
// sample is a loopback literal, so preparing a fetch asks no resolver.
func TestParamsAgree(t *testing.T) {
	t.Parallel()
	samples := map[string]any{"url": "http://127.0.0.1:9/", "recency": "week", "format": "text",
		"search_query": []any{map[string]any{"q": "a", "recency": 30}}}
	paramtest.Agree(t, paramtest.Case{Tool: New(Options{}), Actions: params.Actions(), Samples: samples})
}

// What the schema refuses inside the shapes the decoder keeps raw (recency,
// the batch) or as a value (format) is refused with the schema validator's
// text; the contract's own rules keep theirs.
func TestInputErrors(t *testing.T) {
	t.Parallel()
	tool := New(Options{})
	for in, want := range map[string]string{
		`{}`:                        "Web requires an `action` parameter; nothing was run. Pass one of: search, fetch, wait.",
		`{"action":"browse"}`:       `Unknown Web action "browse"; nothing was run. Pass one of: search, fetch, wait.`,
		`{"action":"fetch"}`:        "missing required field 'url'. Input provided: action",
		`{"action":"search"}`:       "missing required field 'query'. Input provided: action",
		`{"action":"search","q":7}`: "field 'q' must be a string",
		`{"action":"search","query":"x","q":[1]}`:                                                          "field 'q' must be a string",
		`{"action":"search","query":"x","recency":"d"}`:                                                    "value must be one of",
		`{"action":"search","query":"x","recency":0}`:                                                      "arguments do not match the tool's schema",
		`{"action":"search","search_query":"x"}`:                                                           "arguments do not match the tool's schema",
		`{"action":"search","search_query":[{"q":"a","recency":"fortnight"}]}`:                             "value must be one of",
		`{"action":"search","search_query":[{"query":"a"},{"locale":"de"}]}`:                               "search_query[1] has no `q`",
		`{"action":"search","search_query":[{"q":"1"},{"q":"2"},{"q":"3"},{"q":"4"},{"q":"5"},{"q":"6"}]}`: "search_query holds 6 queries; at most 5",
		`{"action":"search","query":"x","max_results":-1}`:                                                 "at /max_results: must be >= 0 but found -1",
		`{"action":"fetch","url":"https://93.184.216.34/","format":"md"}`:                                  "value must be one of",
		`{"action":"fetch","url":"ftp://x"}`:                                                               "only http:// and https:// URLs are supported",
		`{"action":"wait","host":"localhost"}`:                                                             "wait needs `port`",
	} {
		_, err := tool.Prepare(json.RawMessage(in))
		if err == nil || !strings.Contains(tools.AsError(err).Render(ToolName), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

// A batch item's knobs fall back to the top level's; q is query's alias and
// a blank query falls back to q inside an item.
func TestSearchRequest(t *testing.T) {
	t.Parallel()
	d, err := decodeInput(json.RawMessage(`{"action":"search","q":" go ","max_results":20,"recency":7,"domains":["https://www.Go.dev/blog"],` +
		`"search_query":[{"query":" ","q":"chroma","recency":"year","max_results":0},{"q":"goldmark","locale":"de-DE"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := request(d)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(in.queries)
	want := `[{"query":"go","max_results":10,"recency":"7d","domains":["go.dev"]},` +
		`{"query":"chroma","max_results":1,"recency":"year","domains":["go.dev"]},` +
		`{"query":"goldmark","max_results":10,"recency":"7d","domains":["go.dev"],"locale":"de-DE"}]`
	if string(got) != want {
		t.Errorf("queries\n got %s\nwant %s", got, want)
	}
	if string(d.Input()) != `{"action":"search","domains":["https://www.Go.dev/blog"],"max_results":20,"query":" go ","recency":7,`+
		`"search_query":[{"query":" ","q":"chroma","recency":"year","max_results":0},{"q":"goldmark","locale":"de-DE"}]}` {
		t.Errorf("canonical input %s", d.Input())
	}
}

// A call that spells url twice gets one reading: the canonical input (what
// the approval card shows) carries the URL the policy classified, which is
// the one the run fetches.
func TestDuplicateURLGetsOneReading(t *testing.T) {
	t.Parallel()
	tool := New(Options{})
	for in, want := range map[string]tools.Approval{
		`{"action":"fetch","url":"https://93.184.216.34/","url":"http://127.0.0.1:9/"}`: tools.Explicit,
		`{"action":"fetch","url":"http://127.0.0.1:9/","url":"https://93.184.216.34/"}`: tools.Auto,
	} {
		c, err := tool.Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ URL string }
		json.Unmarshal(c.Input, &got)
		if private := strings.Contains(got.URL, "127.0.0.1"); c.Policy.Approval != want || private != (want == tools.Explicit) {
			t.Errorf("%s: approval %v, canonical input %s", in, c.Policy.Approval, c.Input)
		}
	}
}
