// Package fakemodel is a scripted stand-in for DeepSeek's Chat Completions
// endpoint, for tests. It speaks the real SSE wire format: role chunk,
// reasoning_content deltas, content deltas, tool-call fragments keyed by
// index with arguments split across chunks, finish_reason, a usage chunk with
// prompt-cache hit/miss tokens (scripted, or from prefix reuse with
// CachePrefixes), and [DONE]. Every request is recorded.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Call is one scripted tool call.
type Call struct {
	ID   string
	Name string
	Args string // raw JSON text, sent in two fragments
}

// Usage is the usage chunk of a reply.
type Usage struct {
	Prompt, Completion, CacheHit, CacheMiss, Reasoning int
}

// Reply is one scripted answer.
type Reply struct {
	Reasoning string
	Text      string
	Calls     []Call
	Usage     *Usage
	Finish    string // default "stop", or "tool_calls" when Calls is set

	// Raw, when set, is the whole SSE body sent as it is: a stream another
	// server recorded (internal/testutil/recorded).
	Raw []byte

	Status int    // non-zero: answer with this HTTP status and Body
	Body   string // error body for Status
	Header map[string]string

	CutAfter int           // >0: close the connection after this many data frames, no [DONE]
	Stall    bool          // send the role chunk, then hang until the client goes away
	Delay    time.Duration // pause before each frame
	Chunk    int           // characters per text/reasoning delta (default 4)

	// Fault scripts.
	StallAfter   int           // >0: send this many data frames (content included), then hang
	NoHeaders    bool          // never send response headers; hang until the client goes away
	ResetHeaders bool          // send 200 and the SSE headers, then reset the connection (TCP RST)
	KeepAlive    int           // send this many `: keep-alive` comments before the first frame
	KeepEvery    time.Duration // pause before each keep-alive comment
	HugeLine     int           // >0: the first frame after the role chunk is one data line of this many bytes
}

// Text is a reply that streams s.
func Text(s string) Reply {
	return Reply{Text: s, Usage: &Usage{Prompt: 100, Completion: 10, CacheHit: 64, CacheMiss: 36}}
}

// Tools is a reply that calls tools.
func Tools(calls ...Call) Reply {
	return Reply{Calls: calls, Usage: &Usage{Prompt: 100, Completion: 20, CacheHit: 64, CacheMiss: 36}}
}

// Request is a recorded request.
type Request struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    []byte
	At     time.Time // when the server received it
}

// Messages returns the request's messages.
func (r *Request) Messages() []map[string]any {
	ms, _ := r.Body["messages"].([]any)
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// ToolNames returns the names in the request's tools field, or nil when the
// field is absent.
func (r *Request) ToolNames() []string {
	ts, ok := r.Body["tools"].([]any)
	if !ok {
		return nil
	}
	out := []string{}
	for _, t := range ts {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		out = append(out, name)
	}
	return out
}

// Server is a running fake endpoint.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	script   []Reply
	requests []*Request
	respond  func(*Request) Reply
	cache    *prefixCache // nil: replies report their scripted usage
	models   []string     // GET /v1/models; nil answers 404
	listed   []*Request
}

// ServeModels makes GET /v1/models answer with these ids in the OpenAI
// shape, as Ollama's, vLLM's and LM Studio's OpenAI-compatible servers do.
// Those requests are kept apart from the chat requests (ModelRequests).
func (s *Server) ServeModels(ids ...string) {
	s.mu.Lock()
	s.models = append([]string{}, ids...)
	s.mu.Unlock()
}

// ModelRequests returns the GET /v1/models requests received so far.
func (s *Server) ModelRequests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.listed...)
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.listed = append(s.listed, &Request{Path: r.URL.Path, Header: r.Header.Clone(), At: time.Now()})
	ids := s.models
	s.mu.Unlock()
	if ids == nil {
		http.Error(w, `{"error":"fakemodel: no model list"}`, http.StatusNotFound)
		return
	}
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1, "owned_by": "library"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// New starts a server that answers with script, in order. It is closed when
// the test ends.
func New(t testing.TB, script ...Reply) *Server {
	s := &Server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// Respond installs a function that answers every request not covered by
// the remaining script.
func (s *Server) Respond(f func(*Request) Reply) {
	s.mu.Lock()
	s.respond = f
	s.mu.Unlock()
}

// Push appends replies to the script.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, r...)
	s.mu.Unlock()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		s.serveModels(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	req := &Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw, At: time.Now()}
	_ = json.Unmarshal(raw, &req.Body)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var reply Reply
	switch {
	case len(s.script) > 0:
		reply, s.script = s.script[0], s.script[1:]
	case s.respond != nil:
		f := s.respond
		s.mu.Unlock()
		reply = f(req)
		s.mu.Lock()
	default:
		reply = Reply{Status: 500, Body: `{"error":{"message":"fakemodel: no scripted reply left"}}`}
	}
	cache := s.cache
	s.mu.Unlock()
	if cache != nil && reply.Status == 0 {
		completion := 0
		if reply.Usage != nil {
			completion = reply.Usage.Completion
		}
		reply.Usage = cache.usage(raw, completion)
	}
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "fakemodel: unexpected path "+r.URL.Path, http.StatusNotFound)
		return
	}
	if reply.NoHeaders {
		<-r.Context().Done()
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.Body)
		return
	}
	if reply.Raw != nil {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(reply.Raw)
		return
	}
	if stream, _ := req.Body["stream"].(bool); !stream {
		writeJSON(w, reply)
		return
	}
	writeSSE(w, r, reply)
}

// Frames returns the data payloads of reply's stream, without [DONE].
func Frames(reply Reply) []string {
	n := reply.Chunk
	if n <= 0 {
		n = 4
	}
	var frames []string
	add := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "deepseek-v4-pro",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
		frames = append(frames, string(b))
	}
	add(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, part := range split(reply.Reasoning, n) {
		add(map[string]any{"reasoning_content": part}, nil)
	}
	for _, part := range split(reply.Text, n) {
		add(map[string]any{"content": part}, nil)
	}
	for i, c := range reply.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		add(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		half := len(c.Args) / 2
		for _, frag := range []string{c.Args[:half], c.Args[half:]} {
			if frag != "" {
				add(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": frag}}}}, nil)
			}
		}
	}
	finish := reply.Finish
	if finish == "" {
		finish = "stop"
		if len(reply.Calls) > 0 {
			finish = "tool_calls"
		}
	}
	add(map[string]any{}, finish)
	if u := reply.Usage; u != nil {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": []any{},
			"usage": wireUsage(u)})
		frames = append(frames, string(b))
	}
	return frames
}

func wireUsage(u *Usage) map[string]any {
	return map[string]any{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion,
		"total_tokens": u.Prompt + u.Completion, "prompt_cache_hit_tokens": u.CacheHit,
		"prompt_cache_miss_tokens": u.CacheMiss, "completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning}}
}

func writeSSE(w http.ResponseWriter, r *http.Request, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	fl.Flush()
	if reply.ResetHeaders {
		hangUp(w, true)
		return
	}
	if !keepAlive(w, r, reply) {
		return
	}
	frames := Frames(reply)
	if reply.HugeLine > 0 {
		huge, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0,
			"delta": map[string]any{"content": strings.Repeat("x", reply.HugeLine)}}}})
		frames = append([]string{frames[0], string(huge)}, frames[1:]...)
	}
	for i, f := range frames {
		if reply.Stall && i == 1 || reply.StallAfter > 0 && i == reply.StallAfter {
			fl.Flush()
			<-r.Context().Done()
			return
		}
		if reply.CutAfter > 0 && i == reply.CutAfter {
			fl.Flush()
			hangUp(w, false)
			return
		}
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, "data: %s\n\n", f)
		fl.Flush()
	}
	io.WriteString(w, "data: [DONE]\n\n")
	fl.Flush()
}

// keepAlive sends the reply's keep-alive comments; false when the client
// went away meanwhile.
func keepAlive(w http.ResponseWriter, r *http.Request, reply Reply) bool {
	fl, _ := w.(http.Flusher)
	for range reply.KeepAlive {
		if reply.KeepEvery > 0 {
			select {
			case <-time.After(reply.KeepEvery):
			case <-r.Context().Done():
				return false
			}
		}
		io.WriteString(w, ": keep-alive\n\n")
		fl.Flush()
	}
	return true
}

// hangUp closes the connection under the response: an orderly FIN, or with
// rst an abrupt TCP RST (SO_LINGER 0), which may also drop data the client
// has not read yet.
func hangUp(w http.ResponseWriter, rst bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

func writeJSON(w http.ResponseWriter, reply Reply) {
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if reply.Reasoning != "" {
		msg["reasoning_content"] = reply.Reasoning
	}
	var calls []any
	for i, c := range reply.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	finish := "stop"
	if calls != nil {
		finish = "tool_calls"
	}
	body := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "model": "deepseek-v4-pro",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
	if reply.Usage != nil {
		body["usage"] = wireUsage(reply.Usage)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// LastUserText returns the text of the last user message of the request.
func (r *Request) LastUserText() string {
	ms := r.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i]["role"] == "user" {
			s, _ := ms[i]["content"].(string)
			return s
		}
	}
	return ""
}

// HasToolResult reports whether the request carries a tool message whose
// content contains sub.
func (r *Request) HasToolResult(sub string) bool {
	for _, m := range r.Messages() {
		if m["role"] == "tool" {
			if s, _ := m["content"].(string); strings.Contains(s, sub) {
				return true
			}
		}
	}
	return false
}
