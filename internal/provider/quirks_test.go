package provider

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// CONTRACT.md §10.4: a field the server's 400 names as refused is dropped and
// the request sent again, once, and left out of the route's later
// requests; a 400 that names no field is the error as it came, nothing
// re-sent. The bodies are servers' own words, as users reported them.
// README.md "Providers: OpenRouter, local models, your gateway": a field a 400 names is dropped, once.
func TestRefusedFieldsAreDroppedOnlyWhenNamed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, field string
	}{
		{"OpenAI-style unknown parameter (QuantumNous/new-api#418)",
			`{"error":{"message":"Unknown parameter: 'stream_options'.","type":"invalid_request_error","param":"stream_options","code":"unknown_parameter"}}`,
			"stream_options"},
		{"vLLM output cap above the window (stepfun-ai/Step-Audio-R1#3)",
			`{"object":"error","message":"'max_tokens' or 'max_completion_tokens' is too large: 65536. This model's maximum context length is 32768 tokens and your request has 902 input tokens (65536 > 32768 - 902).","type":"BadRequestError","param":null,"code":400}`,
			"max_tokens"},
		{"vLLM 0.20 output cap (vllm-project/vllm#42474)",
			`{"object":"error","message":"This model's maximum context length is 128000 tokens. However, you requested 65535 output tokens and your prompt contains at least 62466 input tokens, for a total of at least 128001 tokens.","type":"BadRequestError","param":null,"code":400}`,
			"max_tokens"},
		{"vLLM without tool-choice support",
			`{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`,
			"tool_choice"},
		{"a plain bad request names no field",
			`{"error":{"message":"Invalid 'messages[1].content': string too long.","type":"invalid_request_error","param":"messages","code":"string_above_max_length"}}`,
			""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := fakemodel.New(t, fakemodel.Reply{Status: 400, Body: c.body}, fakemodel.Text("ok"), fakemodel.Text("again"))
			q := &Quirks{}
			cl, err := New(Config{BaseURL: srv.URL, Model: "m", Quirks: q, Retry: RetryPolicy{Enabled: true, MaxRetries: 2}})
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{Model: "m", MaxTokens: 65536, Messages: []Message{UserText("hi")},
				Tools: []Tool{{Name: "weather", InputSchema: map[string]any{"type": "object"}}}, ToolChoice: &ToolChoice{Type: "auto"}}
			text, err := drain(cl, req)
			reqs := srv.Requests()
			if c.field == "" {
				if err == nil || len(reqs) != 1 || !strings.Contains(err.Error(), "HTTP 400") {
					t.Fatalf("an unnamed 400 was re-sent or hidden: %v (%d requests)", err, len(reqs))
				}
				return
			}
			if err != nil || text != "ok" || len(reqs) != 2 {
				t.Fatalf("%q %v after %d requests", text, err, len(reqs))
			}
			if _, sent := reqs[0].Body[c.field]; !sent {
				t.Fatalf("the first request lacked %s", c.field)
			}
			if _, sent := reqs[1].Body[c.field]; sent || !q.Dropped(c.field) {
				t.Errorf("the re-sent request still carries %s", c.field)
			}
			if _, err := drain(cl, req); err != nil || len(srv.Requests()) != 3 {
				t.Fatal(err)
			}
			if _, sent := srv.Requests()[2].Body[c.field]; sent {
				t.Errorf("a later request on the route sent %s again", c.field)
			}
		})
	}
}

// A server that refuses the field and then the request without it: the
// error says what was dropped.
func TestRefusedTwiceNamesTheField(t *testing.T) {
	t.Parallel()
	refuse := fakemodel.Reply{Status: 400, Body: `{"error":{"message":"Unknown parameter: 'stream_options'.","param":"stream_options"}}`}
	srv := fakemodel.New(t, refuse, fakemodel.Reply{Status: 400, Body: `{"error":{"message":"model not found"}}`})
	cl, _ := New(Config{BaseURL: srv.URL, Model: "m"})
	_, err := drain(cl, &Request{Model: "m", Messages: []Message{UserText("hi")}})
	if err == nil || !strings.Contains(err.Error(), `sent again without stream_options`) || len(srv.Requests()) != 2 {
		t.Errorf("%v (%d requests)", err, len(srv.Requests()))
	}
}

func drain(cl *Client, req *Request) (string, error) {
	s, err := cl.Stream(context.Background(), req)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var b strings.Builder
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		if ev.Kind == EvTextDelta {
			b.WriteString(ev.Text)
		}
	}
}
