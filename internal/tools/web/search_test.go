package web

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/codewhale/codewhale/internal/netpolicy"
)

// backends serves each search engine's real response format on one local
// server and records what it was asked.
type backends struct {
	mu   sync.Mutex
	seen []string
	ddg  []byte // the DuckDuckGo page to answer with
	fail map[string]int
}

func newBackends(t *testing.T) (*backends, string) {
	b := &backends{ddg: fixture(t, "ddg.html"), fail: map[string]int{}}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		engine := strings.Split(strings.Trim(r.URL.Path, "/"), "/")[0]
		b.mu.Lock()
		b.seen = append(b.seen, engine+" "+r.Method+" "+r.URL.RawQuery+" "+string(body)+" auth="+
			r.Header.Get("Authorization")+r.Header.Get("X-Subscription-Token"))
		status := b.fail[engine]
		b.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		switch engine {
		case "ddg":
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			w.Write(b.ddg)
		case "searxng":
			w.Header().Set("Content-Type", "application/json")
			w.Write(fixture(t, "searxng.json"))
		case "tavily":
			w.Header().Set("Content-Type", "application/json")
			w.Write(fixture(t, "tavily.json"))
		case "brave":
			w.Header().Set("Content-Type", "application/json")
			w.Write(fixture(t, "brave.json"))
		default:
			w.WriteHeader(404)
		}
	})
	return b, srv.URL
}

func config(base, provider string, fallback ...string) SearchConfig {
	return SearchConfig{Provider: provider, Fallback: fallback, Backends: map[string]Endpoint{
		"duckduckgo": {BaseURL: base + "/ddg/html/"},
		"searxng":    {BaseURL: base + "/searxng"},
		"tavily":     {BaseURL: base + "/tavily", APIKey: "tvly-test"},
		"brave":      {BaseURL: base + "/brave", APIKey: "brave-test"},
	}}
}

func TestSearchEachBackend(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"duckduckgo", "searxng", "tavily", "brave"} {
		b, base := newBackends(t)
		res, _, err := call(t, newTool(nil, config(base, engine, []string{}...)), `{"action":"search","query":"go context cancel","max_results":2}`)
		if err != nil || !res.Success {
			t.Fatalf("%s: %v %s", engine, err, res.Content)
		}
		r := decode[Response](t, res)
		if r.Count != 2 || r.Results[0].URL != "https://pkg.go.dev/context" || r.Results[0].Domain != "pkg.go.dev" ||
			r.Results[1].Rank != 2 || r.Receipt.Backend != engine || !r.Receipt.Honored.MaxResults {
			t.Errorf("%s: %+v", engine, r)
		}
		if strings.Contains(r.Results[0].Title, "<") || strings.Contains(r.Results[0].Snippet, "<strong>") {
			t.Errorf("%s: markup left in %q / %q", engine, r.Results[0].Title, r.Results[0].Snippet)
		}
		if len(r.Receipt.Degraded) != 0 {
			t.Errorf("%s: degraded %+v", engine, r.Receipt.Degraded)
		}
		b.mu.Lock()
		seen := strings.Join(b.seen, "\n")
		b.mu.Unlock()
		switch engine {
		case "duckduckgo":
			mustContain(t, seen, "ddg POST", "q=go+context+cancel")
			mustNotContain(t, r.Results[0].Snippet+r.Results[0].Title, "Sponsored", "Buy Go")
		case "searxng":
			mustContain(t, seen, "searxng GET format=json&q=go+context+cancel")
		case "tavily":
			mustContain(t, seen, `"query":"go context cancel"`, "auth=Bearer tvly-test")
		case "brave":
			mustContain(t, seen, "q=go+context+cancel", "auth=brave-test")
		}
	}
}

// CONTRACT.md §6.10: every search response carries a receipt naming the backend, the knobs it honoured and how it
// degraded.
// README.md "Web and GitHub": the receipt says which of max_results, recency, domains and locale the backend honoured and what was degraded.
func TestSearchReceiptHonoursAndDegrades(t *testing.T) {
	t.Parallel()
	b, base := newBackends(t)
	res, _, err := call(t, newTool(nil, config(base, "duckduckgo")),
		`{"action":"search","q":"context","recency":"week","domains":["https://go.dev/blog","pkg.go.dev"],"locale":"de-DE"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := decode[Response](t, res)
	h := r.Receipt.Honored
	if !h.Recency || !h.Domains || !h.Locale || !h.MaxResults {
		t.Errorf("honored %+v", h)
	}
	if r.Count != 2 || r.Results[1].Domain != "go.dev" {
		t.Errorf("domain filter left %+v", r.Results)
	}
	if len(r.Receipt.Degraded) != 1 || r.Receipt.Degraded[0] != (Degraded{Kind: "post_filtered", Knob: "domains"}) {
		t.Errorf("degraded %+v", r.Receipt.Degraded)
	}
	if got := r.Receipt.Requested.Domains; strings.Join(got, ",") != "go.dev,pkg.go.dev" {
		t.Errorf("requested domains %v", got)
	}
	b.mu.Lock()
	mustContain(t, b.seen[0], "df=w", "kl=de-de", "site%3Ago.dev+OR+site%3Apkg.go.dev")
	b.mu.Unlock()

	// Knobs a backend cannot apply are reported, not pretended.
	res, _, _ = call(t, newTool(nil, config(base, "tavily", []string{}...)), `{"action":"search","query":"x","locale":"fr-FR"}`)
	r = decode[Response](t, res)
	if r.Receipt.Honored.Locale || len(r.Receipt.Degraded) != 1 || r.Receipt.Degraded[0].Kind != "knob_ignored" ||
		!strings.Contains(r.Warning, "locale filter was not enforced") {
		t.Errorf("tavily locale: %+v %q", r.Receipt, r.Warning)
	}
}

// README.md "Web and GitHub": a failing provider degrades visibly to DuckDuckGo, and the receipt names backend_unavailable and backend_fallback.
func TestSearchFallsBackVisibly(t *testing.T) {
	t.Parallel()
	b, base := newBackends(t)
	b.fail["tavily"] = 503
	res, _, err := call(t, newTool(nil, config(base, "tavily")), `{"action":"search","query":"go context cancel"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := decode[Response](t, res)
	if r.Receipt.Backend != "duckduckgo" || r.Count != 3 {
		t.Fatalf("%+v", r)
	}
	kinds := []string{}
	for _, d := range r.Receipt.Degraded {
		kinds = append(kinds, d.Kind+":"+d.Backend+d.From+">"+d.To)
	}
	if strings.Join(kinds, " ") != "backend_unavailable:tavily> backend_fallback:tavily>duckduckgo" {
		t.Errorf("degraded %v", kinds)
	}
	mustContain(t, r.Warning, "tavily was unavailable", "tried duckduckgo after tavily")
}

// README.md "Web and GitHub": a challenge page is reported as challenge_detected and the next backend answers.
func TestSearchChallengeFallsThrough(t *testing.T) {
	t.Parallel()
	b, base := newBackends(t)
	b.ddg = fixture(t, "ddg_challenge.html")
	res, _, err := call(t, newTool(nil, config(base, "duckduckgo", "searxng")), `{"action":"search","query":"x"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := decode[Response](t, res)
	if r.Receipt.Backend != "searxng" || r.Receipt.Degraded[0] != (Degraded{Kind: "challenge_detected", Backend: "duckduckgo"}) {
		t.Fatalf("%+v", r.Receipt)
	}
	// Every backend down: a clear error naming each.
	b.fail["searxng"] = 500
	_, _, err = call(t, newTool(nil, config(base, "duckduckgo", "searxng")), `{"action":"search","query":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "web search backends unavailable (duckduckgo: challenge_detected; searxng: backend_unavailable — HTTP 500") {
		t.Fatalf("got %v", err)
	}
}

func TestSearchBatch(t *testing.T) {
	t.Parallel()
	_, base := newBackends(t)
	res, _, err := call(t, newTool(nil, config(base, "searxng", []string{}...)),
		`{"action":"search","max_results":1,"search_query":[{"q":"alpha"},{"query":"beta","max_results":3}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Searches []Response }
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil || len(out.Searches) != 2 ||
		out.Searches[0].Count != 1 || out.Searches[1].Count != 3 || out.Searches[1].Query != "beta" {
		t.Fatalf("%v %s", err, res.Content)
	}
}

// README.md "Web and GitHub": SearXNG without base_url or Tavily/Brave without a key fails closed saying what to set.
func TestSearchFailsClosed(t *testing.T) {
	t.Parallel()
	_, base := newBackends(t)
	cases := map[string]struct {
		cfg    SearchConfig
		policy *netpolicy.Policy
		in     string
		want   string
	}{
		"searxng without base_url": {SearchConfig{Provider: "searxng"}, nil, `{"action":"search","query":"x"}`, "searxng needs [search] base_url"},
		"tavily without key":       {SearchConfig{Provider: "tavily"}, nil, `{"action":"search","query":"x"}`, "tavily needs an API key"},
		"unknown provider":         {SearchConfig{Provider: "altavista"}, nil, `{"action":"search","query":"x"}`, `unknown search provider "altavista"`},
		"denied backend host":      {SearchConfig{}, &netpolicy.Policy{Deny: []string{".duckduckgo.com"}}, `{"action":"search","query":"x"}`, "network policy denies html.duckduckgo.com"},
		"default deny":             {SearchConfig{}, &netpolicy.Policy{Default: netpolicy.Deny}, `{"action":"search","query":"x"}`, `default = "deny"`},
		"no query":                 {config(base, "searxng"), nil, `{"action":"search","max_results":3}`, "missing required field 'query'"},
		"bad recency":              {config(base, "searxng"), nil, `{"action":"search","query":"x","recency":"fortnight"}`, "value must be one of"},
	}
	for name, c := range cases {
		_, _, err := call(t, newTool(c.policy, c.cfg), c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}
}

// CONTRACT.md §6.10: only search is parallel-safe; fetch and wait run alone.
func TestSearchParallelSafe(t *testing.T) {
	t.Parallel()
	tool := newTool(nil, SearchConfig{})
	parallel := func(in string) bool {
		c, err := tool.Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		return c.Policy.Parallel
	}
	if !parallel(`{"action":"search","query":"x"}`) || parallel(`{"action":"fetch","url":"https://93.184.216.34/"}`) ||
		parallel(`{"action":"wait","port":8080}`) {
		t.Fatal("only search is parallel-safe")
	}
}
