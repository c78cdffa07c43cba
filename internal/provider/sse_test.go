package provider

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/recorded"
)

func TestSSEReaderFraming(t *testing.T) {
	t.Parallel()
	in := ": comment\r\n" +
		"event: message\r\nid: 7\r\nretry: 10\r\n" +
		"data: {\"a\":\r\ndata:1}\r\n\r\n" +
		"\n\n" +
		"data:no-space\n\n" +
		"data: last-without-blank-line"
	r := newSSEReader(strings.NewReader(in))
	var got []string
	for {
		d, err := r.next()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		got = append(got, string(d))
	}
	want := []string{"{\"a\":\n1}", "no-space", "last-without-blank-line"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q want %q", got, want)
	}
	r = newSSEReader(strings.NewReader("data: [DONE]\n\ndata: after\n\n"))
	if _, err := r.next(); err != errDone {
		t.Errorf("[DONE]: %v", err)
	}
}

func TestSSELongLineAndCap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	r := newSSEReader(strings.NewReader("data: " + long + "\n\n"))
	d, err := r.next()
	if err != nil || string(d) != long {
		t.Fatalf("long line: %d bytes, %v", len(d), err)
	}
	r = newSSEReader(io.MultiReader(strings.NewReader("data: "), bytes.NewReader(bytes.Repeat([]byte("y"), maxSSELine+100<<10))))
	if _, err := r.next(); err == nil || !strings.Contains(err.Error(), "exceeded the SSE line cap") {
		t.Errorf("cap: %v", err)
	}
}

func TestAdapterSkipsMalformedFramesAndDefaultsNames(t *testing.T) {
	t.Parallel()
	a := newChatAdapter()
	a.feed([]byte(`{not json`))
	a.feed([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"arguments":"{}"}}]}}]}`))
	a.feed([]byte(`{"choices":[{"delta":{"content":"hi"}}]}`))
	a.finish()
	var kinds []EventKind
	for _, ev := range a.queue {
		kinds = append(kinds, ev.Kind)
	}
	if a.queue[0].ToolID != "call_0" || a.queue[0].ToolName != "unknown_tool" {
		t.Errorf("fallbacks: %+v", a.queue[0])
	}
	// the call with its arguments, the text, the end
	want := []EventKind{EvToolCallDelta, EvTextDelta, EvMessageStop}
	if fmt.Sprint(kinds) != fmt.Sprint(want) || a.queue[0].Text != "{}" || a.queue[0].Call != 0 {
		t.Fatalf("kinds %v, first %+v", kinds, a.queue[0])
	}
}

func TestUsageFallbacks(t *testing.T) {
	t.Parallel()
	a := newChatAdapter()
	a.feed([]byte(`{"choices":[],"usage":{"input_tokens":10,"total_tokens":25,"prompt_tokens_details":{"cached_tokens":4}}}`))
	u := a.queue[0].Usage
	if u.InputTokens != 10 || u.OutputTokens != 15 || *u.PromptCacheHitTokens != 4 || *u.PromptCacheMissTokens != 6 || u.ReasoningTokens != nil {
		t.Errorf("usage %+v", u)
	}
	a = newChatAdapter()
	a.feed([]byte(`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":0,"completion_tokens_details":{"reasoning_tokens":7}}}`))
	if u := a.queue[0].Usage; u.OutputTokens != 7 || u.PromptCacheHitTokens != nil || u.PromptCacheMissTokens != nil {
		t.Errorf("usage %+v", u)
	}
}

// BenchmarkSSEParse measures chunk JSON through the SSE reader and adapter
// into events; b.SetBytes makes `go test -bench` report MB/s.
func BenchmarkSSEParse(b *testing.B) {
	var buf bytes.Buffer
	frame := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-pro","choices":[{"index":0,"delta":{"content":"hello world "},"logprobs":null,"finish_reason":null}]}`
	think := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-pro","choices":[{"index":0,"delta":{"reasoning_content":"thinking about it "},"logprobs":null,"finish_reason":null}]}`
	for i := 0; i < 2000; i++ {
		buf.WriteString("data: " + think + "\n\n")
	}
	for i := 0; i < 8000; i++ {
		buf.WriteString("data: " + frame + "\n\n")
	}
	buf.WriteString("data: [DONE]\n\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := newSSEReader(bytes.NewReader(data))
		a := newChatAdapter()
		n := 0
		for {
			d, err := r.next()
			if err != nil {
				break
			}
			a.feed(d)
			n += len(a.queue)
			a.queue = a.queue[:0]
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// events feeds an SSE body through the chat adapter, as Stream does.
func adapted(t *testing.T, body string) []StreamEvent {
	t.Helper()
	r := newSSEReader(strings.NewReader(body))
	a := newChatAdapter()
	for {
		data, err := r.next()
		if err != nil {
			break
		}
		a.feed(data)
	}
	return a.queue
}

// Mistral sends tool calls without `index` (recorded: mistral-tool); two
// such calls in one response stay two calls, told apart by id.
// README.md "Providers: OpenRouter, local models, your gateway": tool calls sent whole, without index.
func TestToolCallsWithoutIndex(t *testing.T) {
	t.Parallel()
	rec := strings.TrimSuffix(string(recorded.Turns("mistral-tool")[0]), "data: [DONE]\n\n")
	second := strings.Replace(strings.Replace(rec[strings.Index(rec, "data: {"):], `"gSIMJiOkT"`, `"k2Second"`, 1),
		`San Francisco`, `Paris`, 1)
	var calls []string
	for _, ev := range adapted(t, rec+second) {
		if ev.Kind == EvToolCallDelta {
			calls = append(calls, fmt.Sprintf("%d %s %s %s", ev.Call, ev.ToolID, ev.ToolName, ev.Text))
		}
	}
	want := []string{`0 gSIMJiOkT weather {"location": "San Francisco"}`, `1 k2Second weather {"location": "Paris"}`}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}

// A server that names reasoning both ways in one delta sends one text;
// OpenRouter's `reasoning` alone (recorded: openrouter-glm-tool) is
// reasoning too.
// README.md "Providers: OpenRouter, local models, your gateway": reasoning_content and reasoning are both reasoning.
func TestReasoningFieldsAreOneText(t *testing.T) {
	t.Parallel()
	both := `data: {"choices":[{"index":0,"delta":{"reasoning_content":"Let me","reasoning":"Let me"}}]}` + "\n\n"
	var got string
	for _, ev := range adapted(t, both+string(recorded.Turns("openrouter-glm-tool")[0])) {
		if ev.Kind == EvThinkingDelta {
			got += ev.Text
		}
		if ev.Kind == EvTextDelta && ev.Text != "" {
			t.Errorf("reasoning became text: %q", ev.Text)
		}
	}
	if !strings.HasPrefix(got, "Let meThe user wants to know the weather in Florence") {
		t.Errorf("reasoning %q", got)
	}
}
