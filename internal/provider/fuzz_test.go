package provider

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzSSEReader feeds arbitrary bytes through the SSE reader and the chat
// adapter, as a hostile or broken provider could. It must never panic or
// hang, no payload is longer than the input, only a *LimitError or
// io.EOF ends a stream of bytes, and the adapter closes every block it
// opens.
//
//	go test -fuzz=FuzzSSEReader -fuzztime=20s ./internal/provider
func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Need the file.\"},\"finish_reason\":null}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_0\",\"type\":\"function\",\"function\":{\"name\":\"File\",\"arguments\":\"\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"action\\\":\\\"read\\\"}\"}}]}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":40,\"prompt_cache_hit_tokens\":1024}}\n\ndata: [DONE]\n\n",
		": keep-alive\n\n: keep-alive\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n",
		"event: message\nid: 7\nretry: 10\ndata: {\"a\":\ndata:1}\n\ndata: last-without-blank-line",
		"data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: after",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3},{\"index\":-1,\"function\":{\"name\":\"mcp_a-x00002E-b\"}}]}}]}\n\n",
		"\r\r\n\n\x00data:\xff\xfe\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newSSEReader(bytes.NewReader(in))
		a := newChatAdapter()
		for i := 0; ; i++ {
			if i > len(in)+1 {
				t.Fatal("the reader returned more payloads than there are bytes")
			}
			data, err := r.next()
			if err != nil {
				var le *LimitError
				if err != io.EOF && err != errDone && !errors.As(err, &le) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(data) > len(in) {
				t.Fatalf("payload of %d bytes", len(data))
			}
			a.feed(data)
		}
		a.finish()
		// Calls are numbered densely in arrival order; a call's first piece
		// names it.
		calls := 0
		for _, ev := range a.queue {
			if ev.Kind != EvToolCallDelta {
				continue
			}
			switch {
			case ev.Call == calls:
				if ev.ToolID == "" || ev.ToolName == "" {
					t.Fatalf("call %d starts without an id or name: %+v", ev.Call, ev)
				}
				calls++
			case ev.Call > calls || ev.Call < 0:
				t.Fatalf("call %d after %d calls", ev.Call, calls)
			case ev.ToolID != "" || ev.ToolName != "":
				t.Fatalf("call %d named twice", ev.Call)
			}
		}
		if last := a.queue[len(a.queue)-1]; last.Kind != EvMessageStop {
			t.Fatalf("the stream does not end with MessageStop: %v", last.Kind)
		}
	})
}
