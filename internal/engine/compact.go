package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
)

// CompactContext summarises older turns now (/compact, Ctrl+L).
type CompactContext struct{ Focus string }

func (CompactContext) isOp() {}

// CompactionStarted announces a compaction.
type CompactionStarted struct{ Auto bool }

// CompactionCompleted reports what a compaction replaced.
type CompactionCompleted struct {
	Auto           bool
	Replaced, Kept int // messages summarised / kept verbatim
	BeforeEstimate int // estimated input tokens before
	AfterEstimate  int // and after
	SummaryChars   int
}

// CompactionFailed reports a compaction that left the history unchanged.
type CompactionFailed struct {
	Auto  bool
	Error string
}

func (CompactionStarted) isEvent()   {}
func (CompactionCompleted) isEvent() {}
func (CompactionFailed) isEvent()    {}

// Compaction parameters.
const (
	keepRecentTurns        = 2
	summaryMaxTokens       = 8192
	summaryToolChars       = 1500
	summaryTagOpen         = "<codewhale:compaction_summary"
	defaultContextWindow   = 128_000
	compactionSystemPrompt = "You compress a coding-agent conversation so work can continue in a fresh context. " +
		"Write a faithful, dense summary: the user's goals and constraints, decisions made, files read or changed " +
		"(with paths), commands run and their outcomes, open problems, and the next steps. Keep identifiers, paths and " +
		"error messages exact. Do not invent anything. Output only the summary."
)

// errNothingToCompact means the history is too short to summarise.
var errNothingToCompact = errors.New("not enough history to compact: only the most recent turns exist")

// estimateTokens is a conservative input estimate (about 3 chars a token)
// of a request built from msgs, the system prompt and the tools.
func estimateTokens(msgs []provider.Message, system string, tools []provider.Tool) int {
	n := len(system)
	for _, m := range msgs {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Thinking) + len(b.Input) + len(b.Content) + len(b.Name) + 16
			if b.Type == provider.BlockImageURL {
				n += 3 * imageTokens(b) // priced by its pixels, not its data URL
			}
		}
	}
	for i := range tools {
		n += len(tools[i].Name) + len(tools[i].Description) + len(tools[i].CanonicalSchema())
	}
	return n/3 + 1
}

// contextWindow is the route's window in tokens.
func (e *Engine) contextWindow(c *provider.Client) int {
	if e.opts.ContextWindow > 0 {
		return e.opts.ContextWindow
	}
	info, _ := c.ResolveModel()
	if info.ContextWindow > 0 {
		return info.ContextWindow
	}
	return defaultContextWindow
}

// compactCut returns the index where the kept recent turns begin: the start
// of the keepRecentTurns-th last real user message. 0 means nothing older.
func compactCut(msgs []provider.Message) int {
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Typed() {
			if seen++; seen == keepRecentTurns {
				return i
			}
		}
	}
	return 0
}

// renderForSummary is the transcript text the summariser reads.
func renderForSummary(msgs []provider.Message, budget int) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, blk := range m.Content {
			switch blk.Type {
			case provider.BlockText:
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, blk.Text)
			case provider.BlockToolUse:
				fmt.Fprintf(&b, "[tool call %s] %s\n", blk.Name, firstRunes(string(blk.Input), summaryToolChars))
			case provider.BlockToolResult:
				fmt.Fprintf(&b, "[tool result] %s\n", firstRunes(blk.Content, summaryToolChars))
			case provider.BlockImageURL:
				// The summary replaces an old image by its one line.
				fmt.Fprintf(&b, "[%s] %s\n", m.Role, blk.Description())
			}
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > budget {
		// Keep the beginning (the task) and the end (the latest state).
		s = string(r[:budget/3]) + "\n…[middle of the older history omitted]…\n" + string(r[len(r)-2*budget/3:])
	}
	return s
}

// compact replaces the older part of the history with a model-written
// summary, keeping the most recent turns verbatim; the To-do is never part
// of the history and so survives untouched. It makes one real request.
// The final CompactionCompleted/CompactionFailed event is returned for the
// caller to emit.
func (e *Engine) compact(ctx context.Context, client *provider.Client, focus string, auto bool) (Event, error) {
	e.emit(CompactionStarted{Auto: auto})
	msgs := e.history()
	cut := compactCut(msgs)
	if cut == 0 {
		return CompactionFailed{Auto: auto, Error: errNothingToCompact.Error()}, errNothingToCompact
	}
	older, recent := msgs[:cut], msgs[cut:]
	window := e.contextWindow(client)
	prompt := "Summarise this conversation history:\n\n" + renderForSummary(older, window*2)
	if focus != "" {
		prompt += "\n\nFocus the summary on: " + focus
	}
	info, _ := client.ResolveModel()
	client = client.WithOnRetry(func(r provider.RetryInfo) {
		e.emit(Retry{Attempt: r.Attempt, Max: r.Max, Reason: r.Reason, Status: r.Status, Wait: r.Wait})
	})
	resp, err := client.Complete(ctx, &provider.Request{Model: info.ID, System: compactionSystemPrompt,
		Messages: []provider.Message{provider.UserText(prompt)}, MaxTokens: summaryMaxTokens, ReasoningEffort: "off"})
	if err == nil && strings.TrimSpace(resp.Text()) == "" {
		err = errors.New("the model returned an empty summary")
	}
	if err != nil {
		return CompactionFailed{Auto: auto, Error: err.Error()}, err
	}
	summary := fmt.Sprintf("%s replaced_messages=\"%d\" kept_messages=\"%d\">\n%s\n</codewhale:compaction_summary>",
		summaryTagOpen, len(older), len(recent), sanitizeSummary(resp.Text()))
	summaryMsg := provider.EngineText(summary)
	next := append([]provider.Message{summaryMsg}, recent...)
	e.mu.Lock()
	before := estimateTokens(e.sess.Messages, e.sess.SystemPrompt, nil)
	e.sess.Messages = next
	after := estimateTokens(next, e.sess.SystemPrompt, nil)
	ev := SessionUpdated{SessionID: e.sess.ID, Messages: append([]provider.Message(nil), next...)}
	e.mu.Unlock()
	// The summary is a new record; the replaced messages stay in the
	// session file.
	e.saveCompaction(len(older), summaryMsg)
	e.emit(ev)
	return CompactionCompleted{Auto: auto, Replaced: len(older), Kept: len(recent), BeforeEstimate: before,
		AfterEstimate: after, SummaryChars: len(resp.Text())}, nil
}

// compactNow runs compact inside a turn and emits its final event.
func (e *Engine) compactNow(ctx context.Context, client *provider.Client, auto bool) bool {
	final, err := e.compact(ctx, client, "", auto)
	e.emit(final)
	return err == nil
}

func sanitizeSummary(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "</codewhale:", `<\/codewhale:`)
}

// maybeAutoCompact compacts before a step whose estimated input passes the
// configured share of the window. It runs only at a step boundary, after
// every result of the previous batch is in the history.
func (t *turn) maybeAutoCompact(ctx context.Context, req *provider.Request) bool {
	pct := t.e.opts.AutoCompactPercent
	if pct <= 0 {
		return false
	}
	window := t.e.contextWindow(t.client)
	est := estimateTokens(req.Messages, req.System, req.Tools)
	if est*100 < window*pct {
		return false
	}
	t.e.emit(Status{Message: "Auto-compacting context..."})
	return t.e.compactNow(ctx, t.client, true)
}

// runCompaction handles a CompactContext op while idle.
func (e *Engine) runCompaction(ctx context.Context, op CompactContext) Event {
	e.mu.Lock()
	model := e.sess.Model
	e.mu.Unlock()
	client, err := e.newClient(model)
	if err != nil {
		return CompactionFailed{Error: "Failed to compact: " + err.Error()}
	}
	final, _ := e.compact(ctx, client, op.Focus, false)
	e.reportSaveFailure()
	return final
}
