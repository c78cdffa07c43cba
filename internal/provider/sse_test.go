package provider

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
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
