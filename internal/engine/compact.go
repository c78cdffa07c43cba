package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
// of the history and so survives untouched. It makes one real request,
// announced as a TurnUsage of step (0: outside a turn); its usage is
// returned for the caller to count, with the final CompactionCompleted or
// CompactionFailed event for the caller to emit.
func (e *Engine) compact(ctx context.Context, client *provider.Client, focus string, auto bool, step int) (Event, *provider.Usage, error) {
	e.emit(CompactionStarted{Auto: auto})
	msgs := e.history()
	cut := compactCut(msgs)
	if cut == 0 {
		return CompactionFailed{Auto: auto, Error: errNothingToCompact.Error()}, nil, errNothingToCompact
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
	started := time.Now()
	resp, err := client.Complete(ctx, &provider.Request{Model: info.ID, System: compactionSystemPrompt,
		Messages: []provider.Message{provider.UserText(prompt)}, MaxTokens: summaryMaxTokens, ReasoningEffort: "off"})
	var usage *provider.Usage
	if err == nil {
		usage = resp.Usage
		if usage.Reported() {
			e.emit(TurnUsage{Usage: *usage, DurationMS: time.Since(started).Milliseconds(), Step: step, Model: client.Model()})
		} else { // a server that reports no usage (CONTRACT.md §10.8)
			e.emit(TurnUsage{DurationMS: time.Since(started).Milliseconds(), Step: step, Model: client.Model(), Unreported: true})
		}
	}
	if err == nil && strings.TrimSpace(resp.Text()) == "" {
		err = errors.New("the model returned an empty summary")
	}
	if err != nil {
		return CompactionFailed{Auto: auto, Error: err.Error()}, usage, err
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
		AfterEstimate: after, SummaryChars: len(resp.Text())}, usage, nil
}

// compactNow runs compact inside the turn, counts its usage in the turn's
// (which the session's takes at the end) and emits its final event.
func (t *turn) compactNow(ctx context.Context, auto bool) bool {
	final, usage, err := t.e.compact(ctx, t.client, "", auto, t.step+1)
	t.usageMu.Lock()
	t.usage.Add(usage)
	t.usageMu.Unlock()
	t.e.emit(final)
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
	return t.compactNow(ctx, true)
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
	final, usage, _ := e.compact(ctx, client, op.Focus, false, 0)
	if usage.Reported() { // counted in the session's totals as a turn's usage is
		e.mu.Lock()
		e.sess.Usage.Add(usage)
		e.mu.Unlock()
		e.save("the session's token totals")
	}
	e.reportSaveFailure()
	return final
}
