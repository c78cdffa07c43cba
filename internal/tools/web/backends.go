package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// maxBackendBody bounds what a search backend may send back.
const maxBackendBody = 4 << 20

func get(ctx context.Context, c *http.Client, req *http.Request) ([]byte, error) {
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBackendBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return body, fmt.Errorf("HTTP %d from %s", resp.StatusCode, req.URL.Host)
	}
	return body, nil
}

// siteQuery adds site: operators for engines that understand them.
func siteQuery(q Query) string {
	if len(q.Domains) == 0 {
		return q.Query
	}
	var sites []string
	for _, d := range q.Domains {
		sites = append(sites, "site:"+d)
	}
	if len(sites) == 1 {
		return q.Query + " " + sites[0]
	}
	return q.Query + " (" + strings.Join(sites, " OR ") + ")"
}

// duckduckgo scrapes DuckDuckGo's no-JavaScript HTML endpoint (no key).
type duckduckgo struct{ ep Endpoint }

func (duckduckgo) name() string  { return "duckduckgo" }
func (duckduckgo) ready() string { return "" }
func (d duckduckgo) endpoint() string {
	if d.ep.BaseURL != "" {
		return d.ep.BaseURL
	}
	return "https://html.duckduckgo.com/html/"
}

func (d duckduckgo) search(ctx context.Context, c *http.Client, q Query) (answer, error) {
	form := url.Values{"q": {siteQuery(q)}}
	var a answer
	if df := map[string]string{"day": "d", "week": "w", "month": "m", "year": "y"}[q.Recency]; df != "" {
		form.Set("df", df)
		a.recency = true
	}
	if kl := ddgRegion(q.Locale); kl != "" {
		form.Set("kl", kl)
		a.locale = true
	}
	a.domains = len(q.Domains) > 0
	req, err := http.NewRequest(http.MethodPost, d.endpoint(), strings.NewReader(form.Encode()))
	if err != nil {
		return a, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	body, err := get(ctx, c, req)
	if err != nil {
		return a, err
	}
	a.results, a.challenge = parseDuckDuckGo(body)
	return a, nil
}

// ddgRegion maps a locale such as en-US to DuckDuckGo's kl (us-en).
func ddgRegion(locale string) string {
	lang, region, ok := strings.Cut(strings.ReplaceAll(locale, "_", "-"), "-")
	if !ok || lang == "" || region == "" {
		return ""
	}
	return strings.ToLower(region) + "-" + strings.ToLower(lang)
}

// parseDuckDuckGo reads the result blocks of the HTML endpoint: each
// `div.result` (ads are `result--ad`) holds `a.result__a` (title, link
// through /l/?uddg=<target>) and `.result__snippet`. A page with the
// anomaly/challenge form and no results is a bot challenge.
func parseDuckDuckGo(body []byte) ([]Result, bool) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, false
	}
	var out []Result
	challenge := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := attr(n, "class")
			switch {
			case n.Data == "form" && (strings.Contains(attr(n, "id"), "challenge") || strings.Contains(cls, "anomaly")):
				challenge = true
			case n.Data == "div" && hasClass(cls, "result") && !hasClass(cls, "result--ad"):
				if r, ok := ddgResult(n); ok {
					out = append(out, r)
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out, challenge && len(out) == 0
}

func ddgResult(n *html.Node) (Result, bool) {
	var title, link, snippet string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := attr(n, "class")
			switch {
			case hasClass(cls, "result__a") && title == "":
				title, link = text(n), ddgTarget(attr(n, "href"))
			case hasClass(cls, "result__snippet") && snippet == "":
				snippet = text(n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	if title == "" || link == "" {
		return Result{}, false
	}
	return newResult(title, link, snippet, ""), true
}

// ddgTarget unwraps DuckDuckGo's redirect link (//duckduckgo.com/l/?uddg=…).
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if t := u.Query().Get("uddg"); t != "" {
		return t
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return href
	}
	return ""
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(classes, want string) bool {
	for _, c := range strings.Fields(classes) {
		if c == want {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// searxng queries a self-hosted SearXNG instance's JSON API.
type searxng struct{ ep Endpoint }

func (searxng) name() string { return "searxng" }
func (s searxng) ready() string {
	if s.ep.BaseURL == "" {
		return "searxng needs [search] base_url (your instance, e.g. http://127.0.0.1:8888)"
	}
	return ""
}
func (s searxng) endpoint() string { return s.ep.BaseURL }

func (s searxng) search(ctx context.Context, c *http.Client, q Query) (answer, error) {
	u, err := url.Parse(strings.TrimSuffix(s.ep.BaseURL, "/") + "/search")
	if err != nil {
		return answer{}, err
	}
	v := url.Values{"q": {siteQuery(q)}, "format": {"json"}}
	var a answer
	if q.Recency == "day" || q.Recency == "week" || q.Recency == "month" || q.Recency == "year" {
		v.Set("time_range", q.Recency)
		a.recency = true
	}
	if q.Locale != "" {
		v.Set("language", q.Locale)
		a.locale = true
	}
	a.domains = len(q.Domains) > 0
	u.RawQuery = v.Encode()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("Accept", "application/json")
	body, err := get(ctx, c, req)
	if err != nil {
		return a, err
	}
	var r struct {
		Results []struct {
			URL           string `json:"url"`
			Title         string `json:"title"`
			Content       string `json:"content"`
			PublishedDate string `json:"publishedDate"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return a, fmt.Errorf("searxng answered with something that is not its JSON format (is format=json enabled in settings.yml?): %w", err)
	}
	for _, x := range r.Results {
		a.results = append(a.results, newResult(x.Title, x.URL, x.Content, x.PublishedDate))
	}
	return a, nil
}

// tavily calls Tavily's search API (keyed).
type tavily struct{ ep Endpoint }

func (tavily) name() string { return "tavily" }
func (t tavily) ready() string {
	if t.ep.APIKey == "" {
		return "tavily needs an API key ([search] api_key or DEEPSEEK_SEARCH_API_KEY)"
	}
	return ""
}
func (t tavily) endpoint() string {
	if t.ep.BaseURL != "" {
		return t.ep.BaseURL
	}
	return "https://api.tavily.com"
}

func (t tavily) search(ctx context.Context, c *http.Client, q Query) (answer, error) {
	a := answer{domains: len(q.Domains) > 0}
	reqBody := map[string]any{"query": q.Query, "max_results": q.MaxResults}
	if len(q.Domains) > 0 {
		reqBody["include_domains"] = q.Domains
	}
	switch {
	case q.Recency == "day" || q.Recency == "week" || q.Recency == "month" || q.Recency == "year":
		reqBody["time_range"] = q.Recency
		a.recency = true
	case q.Days > 0:
		reqBody["topic"], reqBody["days"] = "news", q.Days
		a.recency = true
	}
	data, _ := json.Marshal(reqBody)
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(t.endpoint(), "/")+"/search", bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.ep.APIKey)
	body, err := get(ctx, c, req)
	if err != nil {
		return a, err
	}
	var r struct {
		Results []struct {
			Title         string `json:"title"`
			URL           string `json:"url"`
			Content       string `json:"content"`
			PublishedDate string `json:"published_date"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return a, fmt.Errorf("tavily: unreadable response: %w", err)
	}
	for _, x := range r.Results {
		a.results = append(a.results, newResult(x.Title, x.URL, x.Content, x.PublishedDate))
	}
	return a, nil
}

// brave calls the Brave Search API (keyed).
type brave struct{ ep Endpoint }

func (brave) name() string { return "brave" }
func (b brave) ready() string {
	if b.ep.APIKey == "" {
		return "brave needs an API key ([search] api_key or DEEPSEEK_SEARCH_API_KEY)"
	}
	return ""
}
func (b brave) endpoint() string {
	if b.ep.BaseURL != "" {
		return b.ep.BaseURL
	}
	return "https://api.search.brave.com"
}

func (b brave) search(ctx context.Context, c *http.Client, q Query) (answer, error) {
	v := url.Values{"q": {siteQuery(q)}, "count": {strconv.Itoa(min(q.MaxResults*2, 20))}}
	a := answer{domains: len(q.Domains) > 0}
	if f := map[string]string{"day": "pd", "week": "pw", "month": "pm", "year": "py"}[q.Recency]; f != "" {
		v.Set("freshness", f)
		a.recency = true
	}
	if lang, region, ok := strings.Cut(strings.ReplaceAll(q.Locale, "_", "-"), "-"); ok && lang != "" && region != "" {
		v.Set("search_lang", strings.ToLower(lang))
		v.Set("country", strings.ToUpper(region))
		a.locale = true
	}
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(b.endpoint(), "/")+"/res/v1/web/search?"+v.Encode(), nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.ep.APIKey)
	body, err := get(ctx, c, req)
	if err != nil {
		return a, err
	}
	var r struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
				Age         string `json:"age"`
				PageAge     string `json:"page_age"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return a, fmt.Errorf("brave: unreadable response: %w", err)
	}
	for _, x := range r.Web.Results {
		pub := x.PageAge
		if pub == "" {
			pub = x.Age
		}
		a.results = append(a.results, newResult(stripTags(x.Title), x.URL, stripTags(x.Description), pub))
	}
	return a, nil
}

// stripTags removes the <strong> highlighting some APIs put in snippets.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	n, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return s
	}
	return text(n)
}
