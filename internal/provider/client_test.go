package provider_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

var fastRetry = provider.RetryPolicy{Enabled: true, MaxRetries: 3, InitialDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
	ExponentialBase: 2, MaxRetryAfter: time.Minute}

func client(t *testing.T, srv *fakemodel.Server, mut ...func(*provider.Config)) *provider.Client {
	t.Helper()
	cfg := provider.Config{BaseURL: srv.URL, Model: "deepseek-v4-pro", Retry: fastRetry}
	for _, m := range mut {
		m(&cfg)
	}
	c, err := provider.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request() *provider.Request {
	return &provider.Request{Model: "deepseek-v4-pro", MaxTokens: 100, Messages: []provider.Message{provider.UserText("hi")},
		ReasoningEffort: "high"}
}

// collect drains a stream into a readable transcript of its events.
func collect(t *testing.T, s *provider.Stream) ([]string, error) {
	t.Helper()
	var out []string
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch ev.Kind {
		case provider.EvMessageStart:
			out = append(out, "start")
		case provider.EvTextDelta:
			out = append(out, "text:"+ev.Text)
		case provider.EvThinkingDelta:
			out = append(out, "think:"+ev.Text)
		case provider.EvToolCallDelta:
			if ev.ToolID != "" {
				out = append(out, fmt.Sprintf("call%d:%s%s", ev.Call, ev.ToolID, ev.ToolName))
			}
			if ev.Text != "" {
				out = append(out, fmt.Sprintf("args%d:%s", ev.Call, ev.Text))
			}
		case provider.EvMessageDelta:
			s := "delta:" + ev.StopReason
			if ev.Usage != nil {
				s += " usage"
			}
			out = append(out, s)
		case provider.EvMessageStop:
			out = append(out, "end")
		case provider.EvRetry:
			r := ev.Retry
			out = append(out, fmt.Sprintf("retry:%d/%d:%s:retract=%v", r.Attempt, r.Max, r.Reason, r.Retract))
		}
	}
}

func TestStreamTextReasoningAndTools(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Reasoning: "think", Text: "hello", Chunk: 10,
		Calls: []fakemodel.Call{{ID: "a", Name: "File", Args: `{"action":"read"}`}, {ID: "b", Name: "Git", Args: `{"action":"status"}`}},
		Usage: &fakemodel.Usage{Prompt: 1200, Completion: 40, CacheHit: 1024, CacheMiss: 176, Reasoning: 12}})
	c := client(t, srv, func(c *provider.Config) { c.APIKey = "sk-test-key" })
	s, err := c.Stream(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := collect(t, s)
	if err != nil {
		t.Fatal(err)
	}
	want := `start think:think text:hello call0:aFile args0:{"action args0:":"read"} call1:bGit args1:{"action" args1::"status"} delta:tool_calls delta: usage end`
	if strings.Join(got, " ") != want {
		t.Errorf("events:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	req := srv.Requests()[0]
	if req.Header.Get("Authorization") != "Bearer sk-test-key" || req.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("headers: %v", req.Header)
	}
}

func TestStreamUsageMapping(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: "x", Usage: &fakemodel.Usage{Prompt: 1200, Completion: 40, CacheHit: 1024, CacheMiss: 176, Reasoning: 12}})
	s, err := client(t, srv).Stream(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	var u *provider.Usage
	for {
		ev, err := s.Recv()
		if err != nil {
			break
		}
		if ev.Usage != nil {
			u = ev.Usage
		}
	}
	if u == nil || u.InputTokens != 1200 || u.OutputTokens != 40 || *u.PromptCacheHitTokens != 1024 ||
		*u.PromptCacheMissTokens != 176 || *u.ReasoningTokens != 12 || u.PromptCacheWriteTok != nil {
		t.Errorf("usage = %+v", u)
	}
}

func TestNoKeyNeededOnLoopbackButRequiredElsewhere(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Text("ok"))
	if _, err := streamAll(t, client(t, srv)); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("loopback without key sent Authorization %q", h)
	}
	_, err := provider.New(provider.Config{BaseURL: "https://api.deepseek.com"})
	if err == nil || !strings.HasPrefix(err.Error(), "DeepSeek API key not found.") {
		t.Fatalf("missing key: %v", err)
	}
	for _, fix := range []string{"https://platform.deepseek.com/api_keys", "codewhale auth set --provider deepseek", "export DEEPSEEK_API_KEY=<your-key>"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("missing-key error does not name %q", fix)
		}
	}
}

func TestRetryOn503ThenSuccess(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Status: 503, Body: `{"error":{"message":"busy"}}`},
		fakemodel.Reply{Status: 429, Body: "slow down"}, fakemodel.Text("ok"))
	s, err := client(t, srv).Stream(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(t, s)
	if err != nil || !strings.Contains(strings.Join(got, ""), "text:ok") {
		t.Fatalf("got %v, %v", got, err)
	}
	j := strings.Join(got, " ")
	if len(srv.Requests()) != 3 || !strings.Contains(j, "retry:2/4:Server error (503):retract=false retry:3/4:Rate limited (429):retract=false") {
		t.Errorf("requests %d, events %s", len(srv.Requests()), j)
	}
}

func TestRetriesGiveUpAfterMax(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t)
	srv.Respond(func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Status: 500, Body: "boom"} })
	_, err := streamAll(t, client(t, srv))
	var he *provider.HTTPError
	if !errors.As(err, &he) || he.Status != 500 {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("attempts = %d, want 4", n)
	}
	if !strings.HasPrefix(err.Error(), "SSE stream request failed: HTTP 500: boom") {
		t.Errorf("message %q", err)
	}
}

func TestAuthErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{401, 403, 400} {
		srv := fakemodel.New(t, fakemodel.Reply{Status: status, Body: `{"error":{"message":"Authentication Fails (sk-abcdefghijkl)"}}`})
		_, err := streamAll(t, client(t, srv, func(c *provider.Config) { c.APIKey = "sk-abcdefghijkl" }))
		if err == nil {
			t.Fatalf("%d: no error", status)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d: %d attempts", status, n)
		}
		if strings.Contains(err.Error(), "sk-abcdefghijkl") {
			t.Errorf("%d: key leaked: %v", status, err)
		}
		refused := strings.Contains(err.Error(), "refused the API key") && strings.Contains(err.Error(), "DEEPSEEK_API_KEY")
		if refused != (status != 400) {
			t.Errorf("%d: message %q", status, err)
		}
	}
}

func TestRetryAfterHeaderIsHonoured(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Status: 429, Body: "x", Header: map[string]string{"Retry-After": "1"}}, fakemodel.Text("ok"))
	var waits []time.Duration
	c := client(t, srv, func(c *provider.Config) {
		c.Retry.InitialDelay = time.Hour
		c.OnRetry = func(r provider.RetryInfo) { waits = append(waits, r.Wait) }
	})
	if _, err := c.Complete(context.Background(), request()); err != nil {
		t.Fatal(err)
	}
	// Retry-After is waited in full, plus up to 10 % jitter, never less.
	if len(waits) != 1 || waits[0] < time.Second || waits[0] > 1100*time.Millisecond {
		t.Errorf("waits = %v", waits)
	}
}

func TestStreamCutBeforeContentIsResentTransparently(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: "lost", CutAfter: 1}, fakemodel.Text("ok"))
	s, err := client(t, srv).Stream(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if j := strings.Join(got, " "); strings.Contains(j, "lost") || !strings.Contains(j, "text:ok") {
		t.Errorf("events %s", j)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("requests = %d", len(srv.Requests()))
	}
}

func TestCancelStopsStreamImmediately(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Text: strings.Repeat("x", 400), Chunk: 1, Delay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := client(t, srv).Stream(ctx, request())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var recvErr error
	start := time.Now()
	for {
		ev, err := s.Recv()
		if err != nil {
			recvErr = err
			break
		}
		if ev.Kind == provider.EvTextDelta {
			n++
			if n == 3 {
				start = time.Now()
				cancel()
			}
		}
	}
	if !errors.Is(recvErr, context.Canceled) {
		t.Errorf("err = %v", recvErr)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("cancel took %v", d)
	}
}

// CONTRACT.md §10.7: Complete sends the body without stream and its error reads 'Failed to call DeepSeek Chat API:
// HTTP <status>: <body>'.
func TestCompleteNonStream(t *testing.T) {
	t.Parallel()
	srv := fakemodel.New(t, fakemodel.Reply{Reasoning: "r", Text: "answer",
		Calls: []fakemodel.Call{{ID: "x", Name: "mcp_a-x00002E-b", Args: `{"q":1}`}}, Usage: &fakemodel.Usage{Prompt: 5, Completion: 3}})
	resp, err := client(t, srv).Complete(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	msg := provider.Message{Content: resp.Content}
	if resp.Text() != "answer" || msg.Thinking() != "r" || len(msg.ToolUses()) != 1 || msg.ToolUses()[0].Name != "mcp_a.b" {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage.InputTokens != 5 || resp.Usage.OutputTokens != 3 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if _, ok := srv.Requests()[0].Body["stream"]; ok {
		t.Error("non-stream body carried stream")
	}
	srv2 := fakemodel.New(t, fakemodel.Reply{Status: 402, Body: `{"error":{"message":"Insufficient Balance"}}`})
	_, err = client(t, srv2).Complete(context.Background(), request())
	if err == nil || err.Error() != "Failed to call DeepSeek Chat API: HTTP 402: Insufficient Balance" {
		t.Errorf("err = %v", err)
	}
}
