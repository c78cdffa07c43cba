package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// streamContentCap bounds the text and reasoning of one answer
// (CONTRACT.md §9.3). The request's total deadline lives in the provider.
const streamContentCap = 10 << 20

// pendingCall is a tool call assembled from the stream.
type pendingCall struct {
	id, name string
	input    json.RawMessage
	badInput error // arguments that did not parse
}

// streamResult is what one step's stream produced.
type streamResult struct {
	thinking  strings.Builder
	text      strings.Builder // visible text
	textOpen  bool            // a MessageStarted went out; MessageComplete follows once
	open      openBlock       // the block hosts see streaming now
	slots     []*toolSlot     // calls being assembled, by position; nil once finished
	calls     []pendingCall
	usage     *provider.Usage
	err       error
	cancelled bool
	content   int // bytes of text and reasoning
}

// openBlock is the kind of block hosts are shown streaming.
type openBlock int

const (
	openNone openBlock = iota
	openText
	openThinking
)

func newStreamResult() *streamResult { return &streamResult{} }

type toolSlot struct {
	id, name string
	args     strings.Builder
}

// stream opens the request and consumes its events into a streamResult,
// emitting UI events as they arrive.
func (t *turn) stream(ctx context.Context, req *provider.Request) *streamResult {
	sr := newStreamResult()
	s, err := t.client.Stream(ctx, req)
	if err != nil {
		sr.err, sr.cancelled = err, ctx.Err() != nil
		return sr
	}
	defer s.Close()
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			return sr
		}
		if err != nil {
			sr.err, sr.cancelled = err, ctx.Err() != nil
			return sr
		}
		if ev.Kind == provider.EvRetry {
			sr = t.retry(sr, ev.Retry)
			continue
		}
		t.apply(sr, ev)
		if sr.content > streamContentCap {
			sr.err = &provider.LimitError{What: "response content (text + reasoning)", Limit: streamContentCap}
			return sr
		}
	}
}

// apply folds one stream event into sr and tells the host. Hosts see a
// block open when the stream turns from one kind of content to another: a
// reasoning block closes when text or a tool call follows it.
func (t *turn) apply(sr *streamResult, ev provider.StreamEvent) {
	switch ev.Kind {
	case provider.EvMessageStart:
		if ev.Usage.Reported() {
			sr.usage = ev.Usage
		}
	case provider.EvMessageDelta:
		if ev.Usage.Reported() {
			sr.usage = ev.Usage
		}
		if ev.StopReason != "" {
			t.finishCalls(sr)
		}
	case provider.EvMessageStop:
		t.finishCalls(sr)
	case provider.EvTextDelta:
		if sr.open != openText {
			t.openBlock(sr, openText)
			sr.textOpen = true
			t.e.emit(MessageStarted{})
		}
		sr.content += len(ev.Text)
		sr.text.WriteString(ev.Text)
		t.e.emit(MessageDelta{Content: ev.Text})
	case provider.EvThinkingDelta:
		if sr.open != openThinking {
			t.openBlock(sr, openThinking)
			t.e.emit(ThinkingStarted{})
		}
		sr.content += len(ev.Text)
		sr.thinking.WriteString(ev.Text)
		t.e.emit(ThinkingDelta{Content: ev.Text})
	case provider.EvToolCallDelta:
		if ev.Call == len(sr.slots) {
			t.openBlock(sr, openNone)
			sr.slots = append(sr.slots, &toolSlot{id: ev.ToolID, name: ev.ToolName})
		}
		if ev.Call < len(sr.slots) && sr.slots[ev.Call] != nil {
			sr.slots[ev.Call].args.WriteString(ev.Text)
		}
	}
}

// openBlock closes the reasoning block hosts see, if it is open, and makes
// b the open one.
func (t *turn) openBlock(sr *streamResult, b openBlock) {
	if sr.open == openThinking {
		t.e.emit(ThinkingComplete{})
	}
	sr.open = b
}

// finishCalls ends the answer's blocks: the call arguments are complete
// and each call is parsed and announced, in arrival order.
func (t *turn) finishCalls(sr *streamResult) {
	t.openBlock(sr, openNone)
	for i, sl := range sr.slots {
		if sl != nil {
			sr.calls = append(sr.calls, t.finalizeCall(sr, sl))
			sr.slots[i] = nil
		}
	}
}

// retry announces a re-sent request. What the failed attempt streamed is
// void: it is retracted from the hosts and a fresh result starts (the
// usage the failed attempt reported, if any, is kept: it was billed).
func (t *turn) retry(sr *streamResult, info *provider.RetryInfo) *streamResult {
	if info.Retract || sr.text.Len() > 0 || sr.thinking.Len() > 0 || len(sr.calls) > 0 {
		r := Retract{TextChars: utf8.RuneCountInString(sr.text.String()), Reason: info.Reason}
		for _, c := range sr.calls {
			r.ToolIDs = append(r.ToolIDs, c.id)
		}
		t.e.emit(r)
		usage := sr.usage
		sr = newStreamResult()
		sr.usage = usage
	}
	t.e.emit(Retry{Attempt: info.Attempt, Max: info.Max, Reason: info.Reason, Status: info.Status, Wait: info.Wait})
	return sr
}

// finalizeCall parses a tool slot's arguments and announces the call.
func (t *turn) finalizeCall(sr *streamResult, sl *toolSlot) pendingCall {
	name, _ := bound(sl.name, "tool name")
	id, _ := bound(sl.id, "call id")
	c := pendingCall{id: id, name: name, input: json.RawMessage("{}")}
	if dup := uniqueID(sr.calls, id); dup != id {
		// Answer the first call with this id; refuse this one under an id of
		// its own, so the history stays one result per call.
		c.id = dup
		c.badInput = tools.InvalidInput("duplicate tool call id %q: an earlier call in this response already uses it, so this call was not run "+
			"(it is recorded as %q); give every call its own id", id, dup)
	}
	raw := strings.TrimSpace(sl.args.String())
	if raw != "" {
		if json.Valid([]byte(raw)) {
			c.input = json.RawMessage(raw)
		} else {
			b, _ := json.Marshal(raw)
			c.input = b
			c.badInput = cmpOr(c.badInput, tools.InvalidInput("the tool arguments are not valid JSON (%s)", firstRunes(raw, 200)))
			t.e.emit(Status{Message: fmt.Sprintf("⚠ Tool '%s' received malformed arguments from model", name)})
		}
	}
	t.e.emit(ToolCallStarted{ID: c.id, Name: c.name, Input: c.input})
	return c
}

// maxCallField bounds a tool name or call id from the model. A longer one
// names no tool; kept whole it would be echoed into the result and re-sent
// with every later request (a 100,000-character name once made a 104 KB
// tool message).
const maxCallField = 256

// bound cuts an over-long name or id to a short, still distinctive form.
func bound(s, what string) (string, bool) {
	if len(s) <= maxCallField {
		return s, false
	}
	return fmt.Sprintf("%s…[%s cut from %d bytes]", firstRunes(s, 64), what, len(s)), true
}

// uniqueID returns id, or a variant no earlier call of the response uses.
func uniqueID(calls []pendingCall, id string) string {
	used := func(s string) bool {
		for _, c := range calls {
			if c.id == s {
				return true
			}
		}
		return false
	}
	if !used(id) {
		return id
	}
	for n := 2; ; n++ {
		if cand := fmt.Sprintf("%s_dup%d", id, n); !used(cand) {
			return cand
		}
	}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// commit stores the assistant message of a clean step (CONTRACT.md §9.5).
func (t *turn) commit(sr *streamResult) {
	var blocks []provider.Block
	thinking := sr.thinking.String()
	if thinking == "" && len(sr.calls) > 0 {
		thinking = provider.ReasoningOmitted
	}
	if thinking != "" {
		blocks = append(blocks, provider.ThinkingBlock(thinking))
	}
	if sr.text.Len() > 0 {
		blocks = append(blocks, provider.TextBlock(sr.text.String()))
	}
	for _, c := range sr.calls {
		blocks = append(blocks, provider.ToolUseBlock(c.id, c.name, c.input))
	}
	if sr.textOpen {
		t.e.emit(MessageComplete{})
	}
	if sr.text.Len() > 0 || len(sr.calls) > 0 {
		t.e.appendMessage(provider.Message{Role: provider.RoleAssistant, Content: blocks})
	}
}

// streamBrokeText answers a call whose answer broke off before it ran.
const streamBrokeText = "Tool not executed: the model's response broke off before this tool ran."

// dropCalls answers the calls sr announced that the step will not run —
// the turn was cancelled or the stream failed after the answer finished
// but before it ended. None is in the history; each still gets its one
// ToolCallComplete (CONTRACT.md §8.2), so no host keeps a call running.
func (t *turn) dropCalls(sr *streamResult, o ToolOutcome) {
	now := t.e.opts.Clock()
	for _, c := range sr.calls {
		t.e.emit(ToolCallComplete{ID: c.id, Name: c.name, Input: c.input, Result: o, StartedAt: now, CompletedAt: now})
	}
	sr.calls = nil
}

// keepInterruptedText stores the visible partial reply of a cancelled
// stream as assistant_interrupted; partial tool calls are discarded.
func (t *turn) keepInterruptedText(sr *streamResult) {
	if sr.textOpen {
		t.e.emit(MessageComplete{})
	}
	text := sr.text.String()
	if strings.TrimSpace(text) == "" {
		return
	}
	h := t.e.history()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == provider.RoleAssistant || h[i].Role == provider.RoleAssistantInterrupted {
			if h[i].Text() == text {
				return
			}
			break
		}
	}
	t.e.appendMessage(provider.Message{Role: provider.RoleAssistantInterrupted, Content: []provider.Block{provider.TextBlock(text)}})
}

// streamFailed handles a request the provider gave up on (CONTRACT.md §9.12): its
// retries already happened there, under one bound, so nothing here re-sends
// a failed request except a context-length recovery.
func (t *turn) streamFailed(ctx context.Context, sr *streamResult) stepOutcome {
	var se *provider.StreamError
	errors.As(sr.err, &se)
	if sr.textOpen {
		t.e.emit(MessageComplete{})
	}
	t.dropCalls(sr, ToolOutcome{Content: streamBrokeText, Category: classify(sr.err)})
	var he *provider.HTTPError
	if errors.As(sr.err, &he) && isContextLength(he.Message) {
		if t.recoveries < 2 {
			t.recoveries++
			t.e.emit(Status{Message: "The provider rejected the request as too long; compacting context and retrying"})
			if t.compactNow(ctx, true) {
				return stepRetry
			}
		}
		h := t.e.history()
		t.fail(ErrorEnvelope{Message: fmt.Sprintf("Context remains above model limit after %d recovery attempts (~%d token estimate, ~%d budget). Please run /compact or /clear.",
			t.recoveries, estimateTokens(h, "", nil), t.e.contextWindow(t.client)),
			Category: "invalid_input", Severity: "error"})
		return stepFailed
	}
	msg := sr.err.Error()
	var le *provider.LimitError
	switch {
	case errors.As(sr.err, &le):
		// Permanent: the same request overflows again (exit 1, not 75).
		t.fail(ErrorEnvelope{Message: "Stopped: " + msg + ". Ask for a shorter answer or split the work.",
			Category: classify(sr.err), Severity: "error"})
		return stepFailed
	case se != nil:
		msg = "Provider stream connection dropped while reading the response body. " + msg + ". The turn stopped; send a message to retry."
	}
	t.fail(ErrorEnvelope{Message: msg, Category: classify(sr.err), Severity: "error", Recoverable: true})
	return stepFailed
}

// classify maps an error onto an envelope category (CONTRACT.md §8.4).
// ErrorCategory is the error envelope's category of a failed provider
// request (CONTRACT.md §8.4), for a host that sends one itself (the
// one-shot exec).
func ErrorCategory(err error) string { return classify(err) }

func classify(err error) string {
	var he *provider.HTTPError
	var se *provider.StreamError
	var ne *provider.NetworkError
	var mk provider.MissingKeyError
	var le *provider.LimitError
	switch {
	case errors.As(err, &mk):
		return "authentication"
	case errors.As(err, &le):
		return "parse"
	case errors.As(err, &he):
		switch {
		case he.Status == 401:
			return "authentication"
		case he.Status == 403:
			return "authorization"
		case he.Status == 429:
			return "rate_limit"
		case isContextLength(he.Message):
			return "invalid_input"
		case he.Status >= 500 || he.Status == 499:
			return "network"
		default:
			return "invalid_input"
		}
	case errors.As(err, &se):
		if se.Timeout {
			return "timeout"
		}
		return "network"
	case errors.As(err, &ne):
		if ne.Timeout {
			return "timeout"
		}
		return "network"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "internal"
}

func isContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range []string{"context length", "context_length", "maximum context", "too many tokens", "prompt is too long"} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
