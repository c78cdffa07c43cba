package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// Stream guards (engine.md §2.3).
const (
	streamWallClock  = 1800 * time.Second
	streamContentCap = 10 << 20
)

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
	textIdx   int
	textOpen  bool
	calls     []pendingCall
	usage     *provider.Usage
	err       error
	cancelled bool
}

type toolSlot struct {
	id, name string
	args     strings.Builder
}

// stream opens the request and consumes its events into a streamResult,
// emitting UI events as they arrive.
func (t *turn) stream(ctx context.Context, req *provider.Request) *streamResult {
	sr := &streamResult{textIdx: -1}
	sctx, cancel := context.WithTimeout(ctx, streamWallClock)
	defer cancel()
	s, err := t.client.Stream(sctx, req)
	if err != nil {
		sr.err, sr.cancelled = err, ctx.Err() != nil
		return sr
	}
	defer s.Close()
	slots := map[int]*toolSlot{}
	kinds := map[int]provider.BlockKind{}
	content := 0
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			return sr
		}
		if err != nil {
			sr.err, sr.cancelled = err, ctx.Err() != nil
			if !sr.cancelled && sctx.Err() != nil {
				sr.err = &provider.StreamError{Timeout: true, Err: fmt.Errorf("the stream ran longer than %s", streamWallClock)}
			}
			return sr
		}
		switch ev.Kind {
		case provider.EvMessageStart, provider.EvMessageDelta:
			if ev.Usage.Reported() {
				sr.usage = ev.Usage
			}
		case provider.EvBlockStart:
			kinds[ev.Index] = ev.Block
			switch ev.Block {
			case provider.BlockKindText:
				sr.textIdx, sr.textOpen = ev.Index, true
				t.e.emit(MessageStarted{Index: ev.Index})
			case provider.BlockKindThinking:
				t.e.emit(ThinkingStarted{Index: ev.Index})
			case provider.BlockKindToolUse:
				slots[ev.Index] = &toolSlot{id: ev.ToolID, name: ev.ToolName}
			}
		case provider.EvTextDelta:
			content += len(ev.Text)
			sr.text.WriteString(ev.Text)
			t.e.emit(MessageDelta{Index: ev.Index, Content: ev.Text})
		case provider.EvThinkingDelta:
			content += len(ev.Text)
			sr.thinking.WriteString(ev.Text)
			t.e.emit(ThinkingDelta{Index: ev.Index, Content: ev.Text})
		case provider.EvInputJSONDelta:
			if sl := slots[ev.Index]; sl != nil {
				sl.args.WriteString(ev.Text)
			}
		case provider.EvBlockStop:
			switch kinds[ev.Index] {
			case provider.BlockKindThinking:
				t.e.emit(ThinkingComplete{Index: ev.Index})
			case provider.BlockKindToolUse:
				if sl := slots[ev.Index]; sl != nil {
					sr.calls = append(sr.calls, t.finalizeCall(sl))
					delete(slots, ev.Index)
				}
			}
		}
		if content > streamContentCap {
			sr.err = &provider.StreamError{Err: fmt.Errorf("the response exceeded %d bytes of text and reasoning", streamContentCap)}
			return sr
		}
	}
}

// finalizeCall parses a tool slot's arguments and announces the call.
func (t *turn) finalizeCall(sl *toolSlot) pendingCall {
	c := pendingCall{id: sl.id, name: sl.name, input: json.RawMessage("{}")}
	raw := strings.TrimSpace(sl.args.String())
	if raw != "" {
		if json.Valid([]byte(raw)) {
			c.input = json.RawMessage(raw)
		} else {
			b, _ := json.Marshal(raw)
			c.input = b
			c.badInput = tools.InvalidInput("the tool arguments are not valid JSON (%s)", firstRunes(raw, 200))
			t.e.emit(Status{Message: fmt.Sprintf("⚠ Tool '%s' received malformed arguments from model", sl.name)})
		}
	}
	t.e.emit(ToolCallStarted{ID: c.id, Name: c.name, Input: c.input})
	return c
}

// commit stores the assistant message of a clean step (§2.5).
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
		t.e.emit(MessageComplete{Index: sr.textIdx})
	}
	if sr.text.Len() > 0 || len(sr.calls) > 0 {
		t.e.appendMessage(provider.Message{Role: provider.RoleAssistant, Content: blocks})
	}
}

// keepInterruptedText stores the visible partial reply of a cancelled
// stream as assistant_interrupted; partial tool calls are discarded.
func (t *turn) keepInterruptedText(sr *streamResult) {
	if sr.textOpen {
		t.e.emit(MessageComplete{Index: sr.textIdx})
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

const partialReplyNote = "[runtime] The provider stream dropped mid-response. The partial reply above is preserved verbatim. " +
	"Continue where you left off; do not repeat content already delivered."

// streamFailed handles a failed open or a broken stream (§2.12).
func (t *turn) streamFailed(ctx context.Context, sr *streamResult) stepOutcome {
	var se *provider.StreamError
	var ne *provider.NetworkError
	transient := errors.As(sr.err, &se) || errors.As(sr.err, &ne)
	nothing := sr.text.Len() == 0 && sr.thinking.Len() == 0 && len(sr.calls) == 0
	if sr.textOpen {
		t.e.emit(MessageComplete{Index: sr.textIdx})
	}
	if transient && t.retries < maxStepRetries {
		switch {
		case nothing || !t.e.opts.Interactive:
			t.retries++
			t.e.emit(Status{Message: fmt.Sprintf("Connection interrupted; retrying (%d/%d)", t.retries, maxStepRetries)})
			return stepRetry
		case len(sr.calls) == 0 && sr.text.Len() > 0:
			t.retries++
			t.e.appendMessage(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(sr.text.String())}})
			t.e.appendMessage(provider.UserText(partialReplyNote))
			t.e.emit(Status{Message: fmt.Sprintf("Connection interrupted; preserving partial reply and retrying (%d/%d)", t.retries, maxStepRetries)})
			return stepRetry
		}
	}
	var he *provider.HTTPError
	if errors.As(sr.err, &he) && isContextLength(he.Message) {
		if t.recoveries < 2 {
			t.recoveries++
			t.e.emit(Status{Message: "The provider rejected the request as too long; compacting context and retrying"})
			if t.e.compactNow(ctx, t.client, true) {
				return stepRetry
			}
		}
		h := t.e.history()
		t.fail(ErrorEnvelope{Message: fmt.Sprintf("Context remains above model limit after %d recovery attempts (~%d token estimate, ~%d budget). Please run /compact or /clear.",
			t.recoveries, estimateTokens(h, "", nil), t.e.contextWindow(t.client.Model(), t.client.BaseURL())),
			Category: "invalid_input", Severity: "error"})
		return stepFailed
	}
	msg := sr.err.Error()
	if se != nil {
		msg = "Provider stream connection dropped while reading the response body. " + msg + ". The turn stopped; send a message to retry."
	}
	t.fail(ErrorEnvelope{Message: msg, Category: classify(sr.err), Severity: "error", Recoverable: true})
	return stepFailed
}

// classify maps an error onto an envelope category (engine.md §1.4).
func classify(err error) string {
	var he *provider.HTTPError
	var se *provider.StreamError
	var ne *provider.NetworkError
	var mk provider.MissingKeyError
	switch {
	case errors.As(err, &mk):
		return "authentication"
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
