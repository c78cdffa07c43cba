package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
	"github.com/codewhale/codewhale/internal/testutil/recorded"
)

// wireReq is one request a test endpoint received.
type wireReq struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// officialRoute is a client whose base URL is on DeepSeek's own host while
// every connection goes to a loopback TLS server answering in DeepSeek's
// SSE format (or JSON, for a request without stream), so the rules that
// hold only for the first-party route can be watched on the wire.
func officialRoute(t *testing.T, base string) (*Client, func() []wireReq) {
	t.Helper()
	var mu sync.Mutex
	var got []wireReq
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := wireReq{Path: r.URL.Path, Header: r.Header.Clone()}
		_ = json.Unmarshal(raw, &req.Body)
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		if stream, _ := req.Body["stream"].(bool); !stream {
			io.WriteString(w, `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range fakemodel.Frames(fakemodel.Text("ok")) {
			fmt.Fprintf(w, "data: %s\n\n", f)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com" // the test certificate's name
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	c, err := New(Config{BaseURL: base, APIKey: "sk-test", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []wireReq { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
}

// rawServer answers every request with body, as a server that wrote it
// would; hold keeps the connection open afterwards until the client goes.
func rawServer(t *testing.T, body string, hold bool) (*Client, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		if hold {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL, Model: "m", Retry: RetryPolicy{Enabled: true, MaxRetries: 2, InitialDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// events drains a stream of c into its events.
func events(t *testing.T, c *Client, req *Request) ([]StreamEvent, error) {
	t.Helper()
	s, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []StreamEvent
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// said is what a stream's events say: reasoning, text, each call as
// "name args", the stop reason and the last usage.
func said(evs []StreamEvent) (reasoning, text string, calls []string, stop string, u *Usage) {
	for _, ev := range evs {
		switch ev.Kind {
		case EvThinkingDelta:
			reasoning += ev.Text
		case EvTextDelta:
			text += ev.Text
		case EvToolCallDelta:
			if ev.Call == len(calls) {
				calls = append(calls, ev.ToolName+" ")
			}
			calls[ev.Call] += ev.Text
		case EvMessageDelta:
			stop = cmpOr(ev.StopReason, stop)
			if ev.Usage != nil {
				u = ev.Usage
			}
		}
	}
	return
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func hi() []Message { return []Message{UserText("hi")} }

// CONTRACT.md §10.1: the default route is DeepSeek's, at /beta, with
// deepseek-v4-pro; deepseek-v4-flash is the other built-in model and both
// have 1M-token windows.
func TestDefaultRouteAndBuiltInModels(t *testing.T) {
	t.Parallel()
	c, err := New(Config{APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != "https://api.deepseek.com/beta" || c.ProviderID() != "deepseek" || c.ProviderName() != "DeepSeek" ||
		c.Model() != "deepseek-v4-pro" {
		t.Errorf("default route %s %s %s %s", c.BaseURL(), c.ProviderID(), c.ProviderName(), c.Model())
	}
	for _, id := range []string{"deepseek-v4-pro", "deepseek-v4-flash"} {
		if info, _ := ResolveModel(id, true); !info.Known || info.ContextWindow != 1_000_000 || info.Source != "built-in" {
			t.Errorf("%s: %+v", id, info)
		}
	}
}

// CONTRACT.md §10.1: deepseek-chat and deepseek-reasoner go out as
// deepseek-v4-flash with thinking off / effort high on the first-party
// route, whoever built the request (an effort it names stays); elsewhere
// they are sent as given.
func TestLegacyIDsMapToFlashOnTheFirstPartyRoute(t *testing.T) {
	t.Parallel()
	c, got := officialRoute(t, DefaultBaseURL)
	cases := []struct {
		model, tier      string
		effort, thinking any
	}{
		{"deepseek-chat", "", nil, map[string]any{"type": "disabled"}},
		{"deepseek-reasoner", "", "high", map[string]any{"type": "enabled"}},
		{"deepseek-reasoner", "max", "max", map[string]any{"type": "enabled"}},
	}
	for i, k := range cases {
		req := &Request{Model: k.model, ReasoningEffort: k.tier, Messages: hi()}
		var err error
		if i%2 == 0 {
			_, err = events(t, c, req)
		} else {
			_, err = c.Complete(context.Background(), req)
		}
		if err != nil {
			t.Fatal(err)
		}
		b := got()[i].Body
		if b["model"] != "deepseek-v4-flash" || !jsonEqual(b["reasoning_effort"], k.effort) || !jsonEqual(b["thinking"], k.thinking) {
			t.Errorf("%s (%q) went out as %v effort %v thinking %v", k.model, k.tier, b["model"], b["reasoning_effort"], b["thinking"])
		}
	}
	if info, effort := ResolveModel("deepseek-chat", true); info.ID != "deepseek-v4-flash" || effort != "off" {
		t.Errorf("deepseek-chat resolves to %s, effort %q", info.ID, effort)
	}
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	local, _ := New(Config{BaseURL: srv.URL})
	if _, err := events(t, local, &Request{Model: "deepseek-chat", Messages: hi()}); err != nil {
		t.Fatal(err)
	}
	if b := srv.Requests()[0].Body; b["model"] != "deepseek-chat" || b["thinking"] != nil {
		t.Errorf("off the first-party route deepseek-chat went out as %v, thinking %v", b["model"], b["thinking"])
	}
}

// CONTRACT.md §10.1: on the official host a /beta base is used as /beta
// only when a sent tool is strict, and strict is stripped without /beta;
// another host's /beta becomes /v1 and keeps strict.
func TestBetaAndStrictOnTheWire(t *testing.T) {
	t.Parallel()
	strictTool := []Tool{{Name: "File", InputSchema: map[string]any{"type": "object"}, Strict: Bool(true)}}
	plainTool := []Tool{{Name: "File", InputSchema: map[string]any{"type": "object"}}}
	cases := []struct {
		base   string
		tools  []Tool
		path   string
		strict bool
	}{
		{"https://api.deepseek.com/beta", strictTool, "/beta/chat/completions", true},
		{"https://api.deepseek.com/beta", plainTool, "/v1/chat/completions", false},
		{"https://api.deepseek.com", strictTool, "/v1/chat/completions", false},
		{"https://api.deepseek.com/v1", strictTool, "/v1/chat/completions", false},
	}
	for _, k := range cases {
		c, got := officialRoute(t, k.base)
		if _, err := events(t, c, &Request{Model: "deepseek-v4-pro", Tools: k.tools, Messages: hi()}); err != nil {
			t.Fatal(err)
		}
		r := got()[0]
		fn := r.Body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
		if _, strict := fn["strict"]; r.Path != k.path || strict != k.strict {
			t.Errorf("%s (strict tool %v): sent to %s with strict %v", k.base, k.tools[0].Strict != nil, r.Path, fn["strict"])
		}
	}
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	c, _ := New(Config{BaseURL: srv.URL + "/beta"})
	if _, err := events(t, c, &Request{Model: "m", Tools: strictTool, Messages: hi()}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if fn := r.Body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any); r.Path != "/v1/chat/completions" || fn["strict"] != true {
		t.Errorf("another host's /beta: sent to %s with strict %v", r.Path, fn["strict"])
	}
}

// CONTRACT.md §10.1: a client refuses plain http to a host off loopback
// unless the insecure override is set; loopback needs neither it nor a key.
// README.md "Configuration": plain http:// to a non-loopback host is refused unless CODEWHALE_ALLOW_INSECURE_HTTP=1
func TestPlainHTTPOnlyToLoopback(t *testing.T) {
	t.Parallel()
	_, err := New(Config{BaseURL: "http://models.example.com/v1", APIKey: "sk-test"})
	if err == nil || !strings.Contains(err.Error(), "CODEWHALE_ALLOW_INSECURE_HTTP=1") {
		t.Errorf("plain http off loopback: %v", err)
	}
	if _, err := New(Config{BaseURL: "http://models.example.com/v1", APIKey: "sk-test", AllowInsecureHTTP: true}); err != nil {
		t.Errorf("with the override: %v", err)
	}
	for _, base := range []string{"http://127.0.0.1:8000/v1", "http://localhost:11434/v1", "http://[::1]:1234/v1"} {
		if _, err := New(Config{BaseURL: base}); err != nil {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// CONTRACT.md §10.4: the body is model, messages, max_tokens, stream with
// stream_options.include_usage, tools as function definitions and the
// effort fields; a tool's internal fields never reach the wire, and
// tool_choice is left out while thinking is on.
func TestRequestBodyOnTheWire(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"), fakemodel.Text("ok"))
	c, _ := New(Config{BaseURL: srv.URL})
	tool := Tool{Type: "custom", Name: "mcp_srv_get-sum", Description: "Adds.", InputSchema: map[string]any{"type": "object"},
		Strict: Bool(true), DeferLoading: Bool(true), AllowedCallers: []string{"code_execution"}, InputExamples: []any{map[string]any{}},
		CacheControl: &CacheControl{Type: "ephemeral"}}
	req := &Request{Model: "deepseek-v4-pro", MaxTokens: 100, Tools: []Tool{tool}, ToolChoice: &ToolChoice{Type: "auto"},
		ReasoningEffort: "max", Messages: hi()}
	for _, tier := range []string{"max", "off"} {
		req.ReasoningEffort = tier
		if _, err := events(t, c, req); err != nil {
			t.Fatal(err)
		}
	}
	on, off := srv.Requests()[0].Body, srv.Requests()[1].Body
	var keys []string
	for k := range on {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := "max_tokens messages model reasoning_effort stream stream_options thinking tools"; strings.Join(keys, " ") != want {
		t.Errorf("fields with thinking on: %s, want %s", strings.Join(keys, " "), want)
	}
	wantTool := `[{"function":{"description":"Adds.","name":"mcp_srv_get--sum","parameters":{"type":"object"},"strict":true},"type":"function"}]`
	if got, _ := json.Marshal(on["tools"]); string(got) != wantTool {
		t.Errorf("tools:\n got %s\nwant %s", got, wantTool)
	}
	if !jsonEqual(on["stream_options"], map[string]any{"include_usage": true}) || on["stream"] != true || on["max_tokens"] != 100.0 {
		t.Errorf("stream %v, stream_options %v, max_tokens %v", on["stream"], on["stream_options"], on["max_tokens"])
	}
	if off["tool_choice"] != "auto" || off["reasoning_effort"] != nil || !jsonEqual(off["thinking"], map[string]any{"type": "disabled"}) {
		t.Errorf("thinking off: tool_choice %v, effort %v, thinking %v", off["tool_choice"], off["reasoning_effort"], off["thinking"])
	}
}

// CONTRACT.md §10.4: off turns thinking off; low stays low; medium and
// high are high; max and its synonyms are max.
func TestEffortTiers(t *testing.T) {
	t.Parallel()
	for tier, want := range map[string]string{
		"": "none", "off": "disabled", "disabled": "disabled", "none": "disabled", "low": "low", "minimal": "low",
		"medium": "high", "high": "high", "max": "max", "xhigh": "max", "highest": "max", "ultracode": "max",
	} {
		m := body(t, &Request{Model: "deepseek-v4-pro", ReasoningEffort: tier, Messages: hi()}, "http://127.0.0.1:1")
		thinking, _ := m["thinking"].(map[string]any)
		got := "none"
		switch {
		case thinking == nil:
		case thinking["type"] == "disabled" && m["reasoning_effort"] == nil:
			got = "disabled"
		case thinking["type"] == "enabled":
			got, _ = m["reasoning_effort"].(string)
		default:
			got = fmt.Sprint(m["thinking"], m["reasoning_effort"])
		}
		if got != want {
			t.Errorf("tier %q: %s, want %s", tier, got, want)
		}
	}
}

// toolNames are names whose wire form must decode back to them, among them
// names that look like the bare xHHHHHH escape DecodeToolName accepts.
var toolNames = []string{"File", "mcp_srv_echo", "mcp_my-srv_get-sum", "a.b", "web.run", "ü", "", "-", "--x", "-.",
	"ax00002Eb", "get-x00002E-v", "set_max100000_rows", "x10FFFF", "x00002D", "fix00004A", "-x00002E-", "x", "日本語.tool"}

// CONTRACT.md §10.4: tool names are encoded reversibly: the wire form uses
// only [A-Za-z0-9_-], and a streamed call in that form comes back as the
// internal name.
func TestToolNamesAreEncodedReversibly(t *testing.T) {
	t.Parallel()
	for _, name := range toolNames {
		wire := EncodeToolName(name)
		if back := DecodeToolName(wire); back != name {
			t.Errorf("%q goes out as %q and comes back as %q", name, wire, back)
		}
		if strings.Trim(wire, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%q goes out as %q", name, wire)
		}
	}
	name := "set_max100000_rows"
	srv := fakemodel.New(t, fakemodel.Tools(fakemodel.Call{ID: "c1", Name: EncodeToolName(name), Args: `{}`}))
	c, _ := New(Config{BaseURL: srv.URL})
	evs, err := events(t, c, &Request{Model: "m", Tools: []Tool{{Name: name}}, Messages: hi()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, calls, _, _ := said(evs); len(calls) != 1 || calls[0] != name+" {}" || srv.Requests()[0].ToolNames()[0] != EncodeToolName(name) {
		t.Errorf("calls %q, sent %v", calls, srv.Requests()[0].ToolNames())
	}
}

// FuzzToolNameRoundTrip: every valid UTF-8 name decodes back to itself
// (CONTRACT.md §10.4).
func FuzzToolNameRoundTrip(f *testing.F) {
	for _, n := range toolNames {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) {
			return // tool names come from JSON: always valid UTF-8
		}
		if back := DecodeToolName(EncodeToolName(name)); back != name {
			t.Errorf("%q -> %q -> %q", name, EncodeToolName(name), back)
		}
	})
}

// CONTRACT.md §10.4: a 400 naming a sent field as refused, by error.param
// or in the server's words, re-sends the request once without it; one
// naming a field that was not sent is the error as it came.
func TestRefusedEffortAndSamplingFields(t *testing.T) {
	t.Parallel()
	t1, p1 := 0.2, 0.9
	cases := []struct{ body, field string }{
		{`{"error":{"message":"Unrecognized request argument supplied: thinking","type":"invalid_request_error"}}`, "thinking"},
		{`{"error":{"message":"Unsupported parameter: 'reasoning_effort' is not supported with this model.","param":"reasoning_effort","code":"unsupported_parameter"}}`, "reasoning_effort"},
		{`{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model.","param":"temperature"}}`, "temperature"},
		{`{"error":{"message":"top_p is not supported by this model"}}`, "top_p"},
		{`{"error":{"message":"Unsupported parameter: 'stop'.","param":"stop"}}`, ""},
	}
	for _, k := range cases {
		srv := fakemodel.New(t, fakemodel.Reply{Status: 400, Body: k.body}, fakemodel.Text("ok"))
		c, _ := New(Config{BaseURL: srv.URL})
		resp, err := c.Complete(context.Background(), &Request{Model: "m", ReasoningEffort: "high", Temperature: &t1, TopP: &p1, Messages: hi()})
		reqs := srv.Requests()
		if k.field == "" {
			if err == nil || len(reqs) != 1 || !strings.HasPrefix(err.Error(), "Failed to call DeepSeek Chat API: HTTP 400: Unsupported parameter: 'stop'.") {
				t.Errorf("a field not sent: %v after %d requests", err, len(reqs))
			}
			continue
		}
		if err != nil || resp.Text() != "ok" || len(reqs) != 2 {
			t.Fatalf("%s: %v after %d requests", k.field, err, len(reqs))
		}
		for f := range reqs[0].Body {
			if _, kept := reqs[1].Body[f]; kept == (f == k.field) {
				t.Errorf("%s refused: the second request's %s is kept=%v", k.field, f, kept)
			}
		}
	}
}

// CONTRACT.md §10.5: the system prompt first, a user's text blocks joined
// with newlines, one tool message per result that answers the preceding
// assistant message's call, reasoning_content for the models that want it
// (unless thinking is off), and calls left unanswered removed.
func TestMessagesOnTheWire(t *testing.T) {
	t.Parallel()
	hist := []Message{
		{Role: RoleUser, Content: []Block{TextBlock("one"), TextBlock("two")}},
		{Role: RoleAssistant, Content: []Block{ToolUseBlock("c1", "File", json.RawMessage(`{"action":"read"}`)),
			ToolUseBlock("c2", "Git", json.RawMessage(`{"action":"status"}`))}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c1", "body", false), ToolResultBlock("zz", "stray", false)}},
		{Role: RoleAssistant, Content: []Block{ThinkingBlock("so"), TextBlock("Read it.")}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c1", "late", false), TextBlock("next")}},
	}
	call := `"tool_calls":[{"function":{"arguments":"{\"action\":\"read\"}","name":"File"},"id":"c1","type":"function"}]`
	cases := []struct{ model, tier, want string }{
		{"deepseek-v4-pro", "high", `[{"content":"sys","role":"system"},{"content":"one\ntwo","role":"user"},` +
			`{"content":"","reasoning_content":"(reasoning omitted)","role":"assistant",` + call + `},` +
			`{"content":"body","role":"tool","tool_call_id":"c1"},` +
			`{"content":"Read it.","reasoning_content":"so","role":"assistant"},{"content":"next","role":"user"}]`},
		{"deepseek-v4-pro", "off", `[{"content":"sys","role":"system"},{"content":"one\ntwo","role":"user"},` +
			`{"content":null,"role":"assistant",` + call + `},{"content":"body","role":"tool","tool_call_id":"c1"},` +
			`{"content":"Read it.","role":"assistant"},{"content":"next","role":"user"}]`},
		{"gpt-4o", "high", `[{"content":"sys","role":"system"},{"content":"one\ntwo","role":"user"},` +
			`{"content":null,"role":"assistant",` + call + `},{"content":"body","role":"tool","tool_call_id":"c1"},` +
			`{"content":"Read it.","role":"assistant"},{"content":"next","role":"user"}]`},
	}
	for _, k := range cases {
		srv := fakemodel.New(t, fakemodel.Text("ok"))
		c, _ := New(Config{BaseURL: srv.URL})
		if _, err := events(t, c, &Request{Model: k.model, ReasoningEffort: k.tier, System: "sys", Messages: hist}); err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(srv.Requests()[0].Body["messages"]); string(got) != k.want {
			t.Errorf("%s %s:\n got %s\nwant %s", k.model, k.tier, got, k.want)
		}
	}
}

const (
	think  = `{"choices":[{"index":0,"delta":{"reasoning":"hm"}}]}`
	finish = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
)

func content(s string) string { return `{"choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` }

// CONTRACT.md §10.6: lines split on \n with \r dropped, data values joined
// per event and ended by a blank line, other fields and malformed frames
// skipped, and [DONE] ends the stream even while the server holds the
// connection open.
func TestSSEFramingOnTheStream(t *testing.T) {
	t.Parallel()
	body := ": keep-alive\r\n\r\n" +
		"data: " + think + "\r\n\r\n" +
		"event: message\nid: 7\ndata: {\"choices\":[{\"index\":0,\n" + "data: \"delta\":{\"content\":\"a\"}}]}\n\n" +
		"data: {not json\n\n" +
		"data: " + content("b") + "\n\n" +
		"data: " + finish + "\n\n" +
		"data: [DONE]\n\n" +
		"data: " + content("after") + "\n\n"
	c, n := rawServer(t, body, true)
	evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
	if err != nil {
		t.Fatal(err)
	}
	if reasoning, text, _, stop, _ := said(evs); reasoning != "hm" || text != "ab" || stop != "stop" || n() != 1 {
		t.Errorf("reasoning %q, text %q, stop %q after %d requests", reasoning, text, stop, n())
	}
}

// CONTRACT.md §10.6: a final frame without its blank line still counts.
func TestFinalFrameWithoutBlankLine(t *testing.T) {
	t.Parallel()
	c, n := rawServer(t, "data: "+content("all")+"\n\ndata: "+`{"choices":[{"index":0,"delta":{"content":" done"},"finish_reason":"stop"}]}`, false)
	evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
	if _, text, _, stop, _ := said(evs); err != nil || text != "all done" || stop != "stop" || n() != 1 {
		t.Errorf("text %q, stop %q, err %v after %d requests", text, stop, err, n())
	}
}

// CONTRACT.md §10.6: a line longer than 10 MiB ends the stream with an
// error (not retried); a line of exactly 10 MiB is read.
func TestSSELineCapIsExact(t *testing.T) {
	t.Parallel()
	prefix, suffix := `data: {"choices":[{"index":0,"delta":{"content":"`, `"}}]}`
	for _, size := range []int{maxSSELine, maxSSELine + 1} {
		text := strings.Repeat("y", size-len(prefix)-len(suffix))
		c, n := rawServer(t, prefix+text+suffix+"\n\ndata: "+finish+"\n\ndata: [DONE]\n\n", false)
		evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
		var le *LimitError
		_, got, _, _, _ := said(evs)
		switch {
		case size == maxSSELine && (err != nil || got != text):
			t.Errorf("a line of exactly 10 MiB: %d bytes of text, %v", len(got), err)
		case size > maxSSELine && (!errors.As(err, &le) || n() != 1):
			t.Errorf("a line of 10 MiB + 1: %v after %d requests", err, n())
		}
	}
}

// CONTRACT.md §10.6: a tool-call fragment belongs to the call of its
// index; without one, of its id; without either, the call before it.
func TestToolCallFragmentsFindTheirCall(t *testing.T) {
	t.Parallel()
	frag := func(index, id, name, args string) string {
		f := `{"function":{"name":"` + name + `","arguments":` + fmt.Sprintf("%q", args) + `}`
		if id != "" {
			f += `,"id":"` + id + `"`
		}
		if index != "" {
			f += `,"index":` + index
		}
		return `data: {"choices":[{"index":0,"delta":{"tool_calls":[` + f + `}]}}]}` + "\n\n"
	}
	body := frag("0", "a", "File", `{"x"`) + frag("", "", "", `:1}`) + frag("1", "b", "Git", `{`) + frag("1", "", "", `}`) +
		frag("", "m1", "Run", `{"y":`) + frag("", "", "", `2}`) + frag("", "m2", "Bash", `{}`) +
		"data: " + `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	c, _ := rawServer(t, body, false)
	evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
	if err != nil {
		t.Fatal(err)
	}
	_, _, calls, _, _ := said(evs)
	if want := []string{`File {"x":1}`, `Git {}`, `Run {"y":2}`, `Bash {}`}; !slices.Equal(calls, want) {
		t.Errorf("calls %q, want %q", calls, want)
	}
}

// CONTRACT.md §10.6: usage comes on the finish chunk (DeepSeek, recorded),
// in a chunk with no choices, or not at all.
func TestUsageChunks(t *testing.T) {
	t.Parallel()
	noChoices := "data: " + content("x") + "\n\ndata: " + finish + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}` + "\n\ndata: [DONE]\n\n"
	none := "data: " + content("x") + "\n\ndata: " + finish + "\n\ndata: [DONE]\n\n"
	cases := []struct {
		name, body string
		in, out    int
		usage      bool
	}{
		{"DeepSeek's finish chunk", string(recorded.Turns("deepseek-tool")[0]), 339, 83, true},
		{"a chunk without choices", noChoices, 7, 3, true},
		{"none", none, 0, 0, false},
	}
	for _, k := range cases {
		c, _ := rawServer(t, k.body, false)
		evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
		_, _, _, stop, u := said(evs)
		if err != nil || stop == "" || (u != nil) != k.usage || (u != nil && (u.InputTokens != k.in || u.OutputTokens != k.out)) {
			t.Errorf("%s: usage %+v, stop %q, %v", k.name, u, stop, err)
		}
	}
}

// CONTRACT.md §10.7: Complete sends the stream's body without stream (and
// so without stream_options).
func TestCompleteSendsTheSameBodyWithoutStream(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"), fakemodel.Text("ok"))
	c, _ := New(Config{BaseURL: srv.URL})
	req := &Request{Model: "deepseek-v4-pro", System: "sys", MaxTokens: 50, ReasoningEffort: "off", Messages: hi(),
		Tools: []Tool{{Name: "File", InputSchema: map[string]any{"type": "object"}}}, ToolChoice: &ToolChoice{Type: "auto"}}
	if _, err := events(t, c, req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	stream, one := srv.Requests()[0], srv.Requests()[1]
	delete(stream.Body, "stream")
	delete(stream.Body, "stream_options")
	if !jsonEqual(stream.Body, one.Body) {
		t.Errorf("stream body without stream:\n%s\nComplete's body:\n%s", stream.Raw, one.Raw)
	}
	if one.Header.Get("Accept") == "text/event-stream" {
		t.Error("Complete asked for an event stream")
	}
}

// CONTRACT.md §10.7: an HTTP error reads 'Failed to call <Provider> Chat
// API: HTTP <status>: <body>', the body's message with whitespace collapsed,
// keys redacted and cut to 2000 characters.
func TestCompleteErrorWording(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 2500)
	cases := []struct{ name, body, want string }{
		{"", `{"error":{"message":"Insufficient   Balance\n for sk-live1234567890"}}`,
			"Failed to call DeepSeek Chat API: HTTP 402: Insufficient Balance for sk-[REDACTED]"},
		{"OpenRouter", "upstream\t\tgateway  exploded", "Failed to call OpenRouter Chat API: HTTP 402: upstream gateway exploded"},
		{"OpenRouter", `{"message":"` + long + `"}`, "Failed to call OpenRouter Chat API: HTTP 402: " + long[:2*2000]},
	}
	for _, k := range cases {
		srv := fakemodel.New(t, fakemodel.Reply{Status: 402, Body: k.body})
		c, _ := New(Config{BaseURL: srv.URL, Provider: k.name})
		if _, err := c.Complete(context.Background(), &Request{Model: "m", Messages: hi()}); err == nil || err.Error() != k.want {
			t.Errorf("%s: %.120v", cmpOr(k.name, "DeepSeek"), err)
		}
	}
}

// CONTRACT.md §10.8: input and output tokens, cache hit and miss and
// reasoning tokens, in DeepSeek's names and OpenAI's; a count the provider
// did not report stays nil, and a response without usage has none.
func TestUsageReportedOrAbsent(t *testing.T) {
	t.Parallel()
	p := func(n int) string { return fmt.Sprint(n) }
	show := func(u *Usage) string {
		if u == nil {
			return "none"
		}
		opt := func(v *int) string {
			if v == nil {
				return "-"
			}
			return p(*v)
		}
		return fmt.Sprintf("in %d out %d hit %s miss %s reasoning %s", u.InputTokens, u.OutputTokens,
			opt(u.PromptCacheHitTokens), opt(u.PromptCacheMissTokens), opt(u.ReasoningTokens))
	}
	cases := []struct{ usage, want string }{
		{`{"prompt_tokens":1200,"completion_tokens":40,"prompt_cache_hit_tokens":1024,"prompt_cache_miss_tokens":176,` +
			`"completion_tokens_details":{"reasoning_tokens":12}}`, "in 1200 out 40 hit 1024 miss 176 reasoning 12"},
		{`{"prompt_tokens":100,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":64}}`, "in 100 out 10 hit 64 miss 36 reasoning -"},
		{`{"prompt_tokens":124,"total_tokens":146,"completion_tokens":22}`, "in 124 out 22 hit - miss - reasoning -"},
		{`{"prompt_tokens":10,"total_tokens":25}`, "in 10 out 15 hit - miss - reasoning -"},
		{``, "none"},
	}
	for _, k := range cases {
		chunk := ""
		if k.usage != "" {
			chunk = `data: {"choices":[],"usage":` + k.usage + "}\n\n"
		}
		c, _ := rawServer(t, "data: "+finish+"\n\n"+chunk+"data: [DONE]\n\n", false)
		evs, err := events(t, c, &Request{Model: "m", Messages: hi()})
		if _, _, _, _, u := said(evs); err != nil || show(u) != k.want {
			t.Errorf("%s: %s, want %s (%v)", cmpOr(k.usage, "no usage"), show(u), k.want, err)
		}
	}
	srv := fakemodel.New(t, fakemodel.Reply{Text: "ok"})
	c, _ := New(Config{BaseURL: srv.URL})
	if resp, err := c.Complete(context.Background(), &Request{Model: "m", Messages: hi()}); err != nil || resp.Usage != nil {
		t.Errorf("a non-stream answer without usage: %+v, %v", resp, err)
	}
}

// CONTRACT.md §10.9: built-in rows win over the server's list, which is
// asked for once, when a model not built in is first looked up; config
// overrides both; a model no source gives has the assumed window (128k),
// 8192 output tokens, tools on and no price, and a local route's cost 0.
func TestModelTableSourcesAndDefaults(t *testing.T) {
	t.Parallel()
	asked := 0
	big := 999
	table := &ModelTable{
		Live: func() []LiveModel {
			asked++
			return []LiveModel{{ID: "deepseek-v4-pro", ContextWindow: 8000}, {ID: "srv/model", ContextWindow: 32_000, MaxOutput: 4000}}
		},
		Overrides: map[string]ModelOverride{"srv/model": {MaxOutput: big}},
	}
	if info, _ := table.Resolve("deepseek-v4-pro", true); asked != 0 || info.ContextWindow != 1_000_000 || info.Source != "built-in" {
		t.Errorf("a built-in model: %+v, the list asked %d times", info, asked)
	}
	info, _ := table.Resolve("srv/model", false)
	table.Resolve("other", false)
	if asked != 1 || info.ContextWindow != 32_000 || MaxOutputTokens(info) != big || info.Priced {
		t.Errorf("a listed model: %+v (max out %d), the list asked %d times", info, MaxOutputTokens(info), asked)
	}
	unknown, _ := table.Resolve("mystery", false)
	if unknown.Known || unknown.Window() != 128_000 || MaxOutputTokens(unknown) != 8192 || !unknown.Tools || unknown.Priced ||
		unknown.Price != (Price{}) || unknown.Source != "assumed" {
		t.Errorf("an unknown model: %+v", unknown)
	}
	if local, _ := (&ModelTable{Free: true}).Resolve("qwen3:8b", false); !local.Priced || local.Price != (Price{}) {
		t.Errorf("a local route's model: %+v", local)
	}
}

// CONTRACT.md §10.9: the list is GET /models beside the chat URL, cached
// per provider (and base URL) for 10 minutes.
// README.md "Providers: OpenRouter, local models, your gateway": GET {base}/models, cached for 10 minutes.
func TestModelListURLAndCacheLifetime(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"https://api.deepseek.com/beta": "https://api.deepseek.com/v1/models", "http://127.0.0.1:8000": "http://127.0.0.1:8000/v1/models",
		"https://openrouter.ai/api/v1": "https://openrouter.ai/api/v1/models",
	} {
		if got := ModelsURL(base, ""); got != want {
			t.Errorf("ModelsURL(%s) = %s, want %s", base, got, want)
		}
	}
	srv := fakemodel.New(t)
	srv.ServeModels("qwen3:8b", "llama3")
	c, _ := New(Config{BaseURL: srv.URL, ProviderID: "ollama"})
	now := time.Unix(1_800_000_000, 0)
	mc := ModelCache{Dir: t.TempDir(), Now: func() time.Time { return now }}
	for _, step := range []struct {
		after time.Duration
		asks  int
	}{{0, 1}, {10*time.Minute - time.Second, 1}, {time.Second, 2}} {
		now = now.Add(step.after)
		models, err := mc.Models(context.Background(), c, false)
		if err != nil || len(models) != 2 || models[0].ID != "qwen3:8b" || len(srv.ModelRequests()) != step.asks {
			t.Errorf("after %s more: %+v %v, %d requests", step.after, models, err, len(srv.ModelRequests()))
		}
	}
	if _, _, ok := mc.Load("vllm", srv.URL); ok {
		t.Error("one provider's cached list was returned for another")
	}
}
