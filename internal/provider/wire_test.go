package provider

import (
	"encoding/json"
	"strings"
	"testing"
)

// CONTRACT.md §10.1: the chat URL is <base>/chat/completions after a version segment, else <base>/v1/chat/completions,
// and /beta becomes /v1 unless a strict tool is sent.
// README.md "Providers: OpenRouter, local models, your gateway": the chat URL after the base (path_suffix replaces it).
func TestChatURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		base   string
		strict bool
		suffix string
		want   string
	}{
		{"https://api.deepseek.com", false, "", "https://api.deepseek.com/v1/chat/completions"},
		{"https://api.deepseek.com/beta", false, "", "https://api.deepseek.com/v1/chat/completions"},
		{"https://api.deepseek.com/beta", true, "", "https://api.deepseek.com/beta/chat/completions"},
		{"https://api.deepseek.com/beta/", true, "", "https://api.deepseek.com/beta/chat/completions"},
		{"http://127.0.0.1:8089", false, "", "http://127.0.0.1:8089/v1/chat/completions"},
		{"http://127.0.0.1:8089/v1", false, "", "http://127.0.0.1:8089/v1/chat/completions"},
		{"http://127.0.0.1:8089/v1", true, "", "http://127.0.0.1:8089/v1/chat/completions"},
		{"https://gw.example.com/openai/v2", false, "", "https://gw.example.com/openai/v2/chat/completions"},
		{"https://gw.example.com/proxy", false, "", "https://gw.example.com/proxy/v1/chat/completions"},
		{"https://gw.example.com/proxy/BETA", false, "", "https://gw.example.com/proxy/v1/chat/completions"},
		{"https://gw.example.com/v1", false, "/chat/completions", "https://gw.example.com/chat/completions"},
	}
	for _, c := range cases {
		if got := ChatURL(c.base, c.strict, c.suffix); got != c.want {
			t.Errorf("ChatURL(%q, %v, %q) = %q, want %q", c.base, c.strict, c.suffix, got, c.want)
		}
	}
}

// CONTRACT.md §10.1: plain http is refused except for loopback hosts or the insecure override.
func TestCheckBaseURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://api.deepseek.com", "http://127.0.0.1:1", "http://localhost:9", "http://[::1]:9", "http://0.0.0.0:1"} {
		if err := CheckBaseURL(ok, false); err != nil {
			t.Errorf("CheckBaseURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"http://example.com", "ftp://x", "not a url", ""} {
		if err := CheckBaseURL(bad, false); err == nil {
			t.Errorf("CheckBaseURL(%q) succeeded", bad)
		}
	}
	if err := CheckBaseURL("http://example.com", true); err != nil {
		t.Errorf("insecure override: %v", err)
	}
}

func TestToolNameEncoding(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"File":               "File",
		"mcp_srv_echo":       "mcp_srv_echo",
		"mcp_my-srv_get-sum": "mcp_my--srv_get--sum",
		"a.b":                "a-x00002E-b",
		"web.run":            "web-x00002E-run",
		"ü":                  "-x0000FC-",
	}
	for in, want := range cases {
		got := EncodeToolName(in)
		if got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
		if back := DecodeToolName(got); back != in {
			t.Errorf("Decode(%q) = %q, want %q", got, back, in)
		}
	}
	if got := DecodeToolName("ax00002Eb"); got != "a.b" {
		t.Errorf("bare xHHHHHH: got %q", got)
	}
	if got := DecodeToolName("fix00004A"); got != "fix00004A" {
		t.Errorf("safe code point must stay literal: got %q", got)
	}
}

func body(t *testing.T, req *Request, base string) map[string]any {
	t.Helper()
	raw, err := encodeBody(req, base)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// CONTRACT.md §9.2: the request carries stream, tool_choice auto with tools, the resolved reasoning effort, and strict
// on a strict tool.
func TestEncodeBodyReasoningAndTools(t *testing.T) {
	t.Parallel()
	tools := []Tool{{Name: "File", Description: "d", InputSchema: map[string]any{"type": "object"}, Strict: Bool(true),
		AllowedCallers: []string{"direct"}, DeferLoading: Bool(false)}}
	cases := []struct {
		tier       string
		effort     any
		thinking   any
		toolChoice any
	}{
		{"", nil, nil, "auto"},
		{"off", nil, map[string]any{"type": "disabled"}, "auto"},
		{"low", "low", map[string]any{"type": "enabled"}, nil},
		{"medium", "high", map[string]any{"type": "enabled"}, nil},
		{"max", "max", map[string]any{"type": "enabled"}, nil},
	}
	for _, c := range cases {
		req := &Request{Model: "deepseek-v4-pro", Stream: true, MaxTokens: 10, Tools: tools,
			ToolChoice: &ToolChoice{Type: "auto"}, ReasoningEffort: c.tier, Messages: []Message{UserText("hi")}}
		m := body(t, req, "http://127.0.0.1:1")
		if m["reasoning_effort"] != c.effort && !(c.effort == nil && m["reasoning_effort"] == nil) {
			t.Errorf("%q: reasoning_effort = %v", c.tier, m["reasoning_effort"])
		}
		if !jsonEqual(m["thinking"], c.thinking) {
			t.Errorf("%q: thinking = %v", c.tier, m["thinking"])
		}
		if !jsonEqual(m["tool_choice"], c.toolChoice) {
			t.Errorf("%q: tool_choice = %v", c.tier, m["tool_choice"])
		}
		if !jsonEqual(m["stream_options"], map[string]any{"include_usage": true}) {
			t.Errorf("stream_options = %v", m["stream_options"])
		}
		fn := m["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
		if fn["strict"] != true {
			t.Errorf("strict must be kept for a loopback base: %v", fn)
		}
		tool := m["tools"].([]any)[0].(map[string]any)
		for _, k := range []string{"defer_loading", "allowed_callers"} {
			if _, ok := fn[k]; ok {
				t.Errorf("internal field %s leaked onto the wire", k)
			}
			if _, ok := tool[k]; ok {
				t.Errorf("internal field %s leaked onto the wire", k)
			}
		}
	}
	m := body(t, &Request{Model: "deepseek-v4-pro", Tools: tools, Messages: []Message{UserText("x")}}, "https://api.deepseek.com")
	fn := m["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if _, ok := fn["strict"]; ok {
		t.Error("strict must be stripped on the official non-beta host")
	}
	if _, ok := m["stream"]; ok {
		t.Error("non-stream bodies omit stream")
	}
	m = body(t, &Request{Model: "m", Messages: []Message{UserText("x")}}, "http://127.0.0.1:1")
	if _, ok := m["tools"]; ok {
		t.Error("absent tools must not be sent")
	}
	m = body(t, &Request{Model: "m", Tools: []Tool{}, Messages: []Message{UserText("x")}}, "http://127.0.0.1:1")
	if ts, ok := m["tools"].([]any); !ok || len(ts) != 0 {
		t.Errorf("present empty tools must be sent as []: %v", m["tools"])
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// CONTRACT.md §9.5: a tool-calling answer without reasoning is sent back with '(reasoning omitted)'.
func TestWireMessages(t *testing.T) {
	t.Parallel()
	hist := []Message{
		UserText("read it"),
		{Role: RoleAssistant, Content: []Block{ThinkingBlock("plan"), TextBlock("Reading."),
			ToolUseBlock("c1", "File", json.RawMessage(`{ "action": "read" }`)),
			ToolUseBlock("c2", "Git", json.RawMessage(`{"action":"status"}`))}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c1", "body", false), ToolResultBlock("zz", "orphan", false)}},
		{Role: RoleAssistant, Content: []Block{ToolUseBlock("c3", "File", nil)}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c3", "ok", true)}},
		{Role: RoleAssistantInterrupted, Content: []Block{TextBlock("partial")}},
		{Role: RoleAssistant, Content: []Block{ThinkingBlock("only thinking")}}, // never stored; dropped if present
		{Role: RoleSystem, Content: []Block{TextBlock("[tool_history_repair] note")}},
		{Role: RoleUser, Content: []Block{TextBlock("a"), TextBlock("b")}},
	}
	m := body(t, &Request{Model: "deepseek-v4-pro", System: "sys", Messages: hist, ReasoningEffort: "high"}, "http://127.0.0.1:1")
	got, _ := json.Marshal(m["messages"])
	want := `[{"content":"sys","role":"system"},` +
		`{"content":"read it","role":"user"},` +
		`{"content":"Reading.","reasoning_content":"plan","role":"assistant","tool_calls":[{"function":{"arguments":"{\"action\":\"read\"}","name":"File"},"id":"c1","type":"function"}]},` +
		`{"content":"body","role":"tool","tool_call_id":"c1"},` +
		`{"content":"","reasoning_content":"(reasoning omitted)","role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"File"},"id":"c3","type":"function"}]},` +
		`{"content":"ok","role":"tool","tool_call_id":"c3"},` +
		`{"content":"` + strings.ReplaceAll(InterruptedPrefix, "\n", `\n`) + `partial","role":"assistant"},` +
		`{"content":"a\nb","role":"user"}]`
	if string(got) != want {
		t.Errorf("messages:\n got %s\nwant %s", got, want)
	}
	// Without replay (reasoning off) no reasoning_content is sent, and a
	// tool-call-only assistant message has null content.
	m = body(t, &Request{Model: "deepseek-v4-pro", Messages: hist[3:5], ReasoningEffort: "off"}, "http://127.0.0.1:1")
	got, _ = json.Marshal(m["messages"])
	if strings.Contains(string(got), "reasoning_content") || !strings.Contains(string(got), `"content":null`) {
		t.Errorf("reasoning off: %s", got)
	}
}

func TestRequiresReasoningReplay(t *testing.T) {
	t.Parallel()
	for m, want := range map[string]bool{"deepseek-v4-pro": true, "deepseek-chat": true, "deepseek-reasoner": true,
		"qwen-thinking": true, "deepseek-r1": true, "deepseek-rx": false, "gpt-4o": false} {
		if got := requiresReasoningReplay(m); got != want {
			t.Errorf("%s: %v", m, got)
		}
	}
}

func TestSanitizeBody(t *testing.T) {
	t.Parallel()
	got := sanitizeBody([]byte(`{"error":{"message":"Authentication   Fails,\n your key sk-abcdef1234567890 is invalid"}}`), "")
	if got != "Authentication Fails, your key sk-[REDACTED] is invalid" {
		t.Errorf("got %q", got)
	}
	if got := sanitizeBody([]byte(strings.Repeat("x", 5000)), ""); len(got) != 2000 {
		t.Errorf("len %d", len(got))
	}
	if got := sanitizeBody([]byte("key=secret123"), "secret123"); got != "key=[REDACTED]" {
		t.Errorf("got %q", got)
	}
}
