package tui

import (
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
	"github.com/codewhale/codewhale/internal/tui/transcript"
)

// The running turn's cells as the engine streams them: the reply, the
// reasoning and the tool calls of the current provider attempt, added to
// tr and finished at now.

// start marks the turn as running from now: a new step and tool group.
func (t *turnState) start(now time.Time) {
	t.busy = true
	t.started = now
	t.errShown = false
	t.group++
	t.tools = map[string]*transcript.Cell{}
	t.setWorking("working…")
}

// engineError shows an engine error; one of severity error or critical
// ends the streaming cells (the reply so far is marked interrupted).
func (t *turnState) engineError(tr *transcript.Transcript, now time.Time, env engine.ErrorEnvelope) {
	sev := env.Severity
	if sev == "" {
		sev = "error"
	}
	if sev == "error" || sev == "critical" {
		t.closeThinking(tr, now)
		t.closeAssistant(tr, now, t.assistant != nil)
		t.errShown = true
	}
	tr.Add(transcript.NewError(sev, env.Message))
}

// syncQueued marks the turn's unstarted calls as queued while a card is
// open for another one (waiting), so only the running ones spin.
func (t *turnState) syncQueued(tr *transcript.Transcript, waiting bool) {
	for _, c := range t.tools {
		c.SetQueued(waiting && !c.Tool.Done && !c.Tool.AwaitingApproval)
	}
	tr.Changed()
}

// setWorking is the phase strip's working label (not while cancelling).
func (t *turnState) setWorking(label string) {
	if t.cancelling {
		return
	}
	t.phase, t.label = phaseWorking, label
}

// open adds a streaming cell of the current attempt (a retraction takes
// it back) and shows label while it streams.
func (t *turnState) open(tr *transcript.Transcript, now time.Time, kind transcript.Kind, label string) *transcript.Cell {
	c := tr.Add(&transcript.Cell{Kind: kind, Streaming: true, Started: now})
	t.attempt = append(t.attempt, c)
	t.setWorking(label)
	return c
}

// startMessage opens a reply cell: a new step of the turn.
func (t *turnState) startMessage(tr *transcript.Transcript, now time.Time) {
	t.closeThinking(tr, now)
	t.group++
	t.assistant = t.open(tr, now, transcript.Assistant, "working…")
}

// startThinking opens a reasoning cell.
func (t *turnState) startThinking(tr *transcript.Transcript, now time.Time) {
	t.thinking = t.open(tr, now, transcript.Thinking, "reasoning…")
}

// messageDelta appends to the reply, opening it if none is open.
func (t *turnState) messageDelta(tr *transcript.Transcript, now time.Time, s string) {
	if t.assistant == nil {
		t.startMessage(tr, now)
	}
	t.assistant.Append(s)
	t.sawOutput = true
	tr.Changed()
}

// thinkingDelta appends to the reasoning, opening it if none is open.
func (t *turnState) thinkingDelta(tr *transcript.Transcript, now time.Time, s string) {
	if t.thinking == nil {
		t.startThinking(tr, now)
	}
	t.thinking.Append(s)
	tr.Changed()
}

// closeThinking finishes the open reasoning cell.
func (t *turnState) closeThinking(tr *transcript.Transcript, now time.Time) {
	if c := t.thinking; c != nil {
		c.Finish(now)
		t.thinking = nil
		tr.Changed()
	}
}

// closeAssistant finalises the streaming reply; an empty one is dropped.
func (t *turnState) closeAssistant(tr *transcript.Transcript, now time.Time, interrupted bool) {
	c := t.assistant
	if c == nil {
		return
	}
	t.assistant = nil
	if termtext.OneLine(c.Text()) == "" {
		tr.Remove(c)
		return
	}
	if interrupted || t.cancelling {
		c.MarkInterrupted(now)
	} else {
		c.Finish(now)
	}
	tr.Changed()
}

// toolStarted adds a running call's cell: the call is in the history, so
// the turn has begun to answer.
func (t *turnState) toolStarted(tr *transcript.Transcript, now time.Time, ev engine.ToolCallStarted) {
	t.sawOutput = true
	t.closeAssistant(tr, now, false)
	c := tr.Add(transcript.NewTool(ev.ID, ev.Name, ev.Input, t.group, now))
	if t.tools == nil {
		t.tools = map[string]*transcript.Cell{}
	}
	t.tools[ev.ID] = c
	t.attempt = append(t.attempt, c)
	t.running++
	t.setWorking(toolLabel(ev.Name, c))
}

// toolProgress shows a running call's latest output.
func (t *turnState) toolProgress(tr *transcript.Transcript, ev engine.ToolCallProgress) {
	if c := t.tools[ev.ID]; c != nil {
		c.SetLive(ev.Output)
		tr.Changed()
	}
}

// toolCompleted finishes a call's cell (adding it when its start was not
// seen).
func (t *turnState) toolCompleted(tr *transcript.Transcript, now time.Time, ev engine.ToolCallComplete) {
	c := t.tools[ev.ID]
	if c == nil {
		c = tr.Add(transcript.NewTool(ev.ID, ev.Name, ev.Input, t.group, ev.StartedAt))
	} else {
		t.running = max(t.running-1, 0)
	}
	c.Complete(ev.Result, now)
	tr.Changed()
	if t.running == 0 {
		t.setWorking("working…")
	}
}

// retract removes what the failed provider attempt streamed: the request
// is re-sent and its answer starts again.
func (t *turnState) retract(tr *transcript.Transcript, ev engine.Retract) {
	for _, c := range t.attempt {
		tr.Remove(c)
	}
	for _, id := range ev.ToolIDs {
		if t.tools[id] != nil {
			delete(t.tools, id)
			t.running = max(t.running-1, 0)
		}
	}
	t.attempt, t.assistant, t.thinking = nil, nil, nil
	tr.Changed()
}

// toolLabel is the working label for a running tool.
func toolLabel(name string, c *transcript.Cell) string {
	switch name {
	case "Run":
		return "verifying…"
	case "File", "Git":
		if s := transcript.Summary(name, c.Tool.Input); len(s) >= 4 && (s[:4] == "read" || s[:4] == "list" || s[:4] == "stat" ||
			s[:4] == "sear" || s[:4] == "diff" || s[:4] == "log ") {
			return "reading…"
		}
	}
	return "using tool…"
}
