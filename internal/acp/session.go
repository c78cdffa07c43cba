package acp

import (
	"context"
	"encoding/json"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/tools/work"
)

// session is one ACP session: one engine, one pump reading its events.
// The pump reads the whole time the session is open — between turns too,
// where a mode change or a loaded history emits events — so the engine is
// never blocked on a host that stopped listening.
type session struct {
	a   *Agent
	id  string
	cwd string
	eng *engine.Engine
	b   *Backend

	stopped chan struct{} // closed when the engine's event stream ends

	mu      sync.Mutex
	turn    *turn // the prompt being answered, nil between turns
	curMode posture.Mode
	tools   map[string]*toolCall // calls of the running turn by id
	planned string               // the To-do list last reported, as JSON
}

// turn is one session/prompt waiting for its TurnComplete.
type turn struct {
	ctx  context.Context
	done chan engine.TurnComplete
}

func newSession(a *Agent, b *Backend, cwd string) *session {
	s := &session{a: a, id: b.SessionID, cwd: cwd, eng: b.Engine, b: b, stopped: make(chan struct{}), curMode: b.Mode,
		tools: map[string]*toolCall{}}
	go s.pump()
	if b.Resume != nil {
		s.eng.Submit(*b.Resume)
	}
	return s
}

// pump hands every engine event to handle until the engine stops.
func (s *session) pump() {
	defer close(s.stopped)
	for ev := range s.eng.Events() {
		s.handle(ev)
	}
}

// close stops the engine (cancelling a running turn) and releases what
// the host built for the session.
func (s *session) close() {
	s.eng.Cancel()
	s.eng.Submit(engine.Shutdown{})
	<-s.stopped
	if s.b.Close != nil {
		s.b.Close()
	}
}

func (s *session) mode() posture.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.curMode
}

// prompt runs one turn. A second prompt while one runs is refused: the
// protocol has one prompt in flight per session.
func (s *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	send, err := message(ctx, blocks)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	t := &turn{ctx: ctx, done: make(chan engine.TurnComplete, 1)}
	s.mu.Lock()
	if s.turn != nil {
		s.mu.Unlock()
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "a prompt is already running in this session; " +
			"wait for its response or send session/cancel"})
	}
	s.turn = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
	}()
	stop := context.AfterFunc(ctx, s.eng.Cancel)
	defer stop()
	s.eng.Submit(send)
	select {
	case done := <-t.done:
		return promptResponse(ctx, done)
	case <-s.stopped:
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": "the session's engine stopped before the turn ended"})
	}
}

// promptResponse is how a turn's end is told to the client: a stop
// reason, or an error for a turn that failed.
func promptResponse(ctx context.Context, done engine.TurnComplete) (sdk.PromptResponse, error) {
	switch {
	case done.Status == engine.TurnInterrupted || ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case done.MaxStepsReached:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case done.Status == engine.TurnFailed:
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": done.Error, "category": done.ErrorCategory})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// current is the running prompt, nil between turns.
func (s *session) current() *turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// update sends one session/update. A failed send means the client went
// away; the connection's end stops the session.
func (s *session) update(u sdk.SessionUpdate) {
	err := s.a.conn.SessionUpdate(s.a.ctx, sdk.SessionNotification{SessionId: sdk.SessionId(s.id), Update: u})
	if err != nil {
		s.a.opts.Log.Debug("session/update not sent", "session", s.id, "err", err)
	}
}

// handle translates one engine event for the client.
func (s *session) handle(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.TurnStarted:
		if t := s.current(); t != nil && t.ctx.Err() != nil {
			s.eng.Cancel() // cancelled before the turn had a cancel func
		}
	case engine.MessageDelta:
		s.update(sdk.UpdateAgentMessageText(ev.Content))
	case engine.ThinkingDelta:
		s.update(sdk.UpdateAgentThoughtText(ev.Content))
	case engine.ToolCallStarted, engine.ToolCallProgress:
		s.toolEvent(ev)
	case engine.ToolCallComplete:
		s.toolEvent(ev)
		s.plan()
	case engine.ApprovalRequired:
		s.approval(ev)
	case engine.SettingsChanged:
		s.settings(ev.Settings)
	case engine.Retract:
		s.retract(ev)
	case engine.Retry:
		s.update(sdk.UpdateAgentThoughtText("\n" + ev.Line() + "\n"))
	case engine.Error:
		s.update(sdk.UpdateAgentMessageText("\n\n" + ev.Message + "\n"))
	case engine.TurnComplete:
		s.mu.Lock()
		t := s.turn
		s.tools = map[string]*toolCall{}
		s.mu.Unlock()
		if t != nil {
			t.done <- ev
		}
	}
}

// settings reports a mode change the client did not ask for (or confirms
// one it did).
func (s *session) settings(set engine.Settings) {
	s.mu.Lock()
	changed := s.curMode != set.Mode
	s.curMode = set.Mode
	s.mu.Unlock()
	if changed {
		s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: modeID(set.Mode)}})
	}
}

// plan reports the To-do list as the protocol's plan when a call changed
// it: every entry, each time, as the protocol wants.
func (s *session) plan() {
	if s.b.Todo == nil {
		return
	}
	snap := s.b.Todo.Snapshot()
	key, _ := json.Marshal(snap)
	if string(key) == s.planned {
		return
	}
	s.planned = string(key)
	entries := make([]sdk.PlanEntry, 0, len(snap.Items))
	for _, it := range snap.Items {
		st := sdk.PlanEntryStatusPending
		switch it.Status {
		case work.InProgress:
			st = sdk.PlanEntryStatusInProgress
		case work.Completed, work.Cancelled:
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Content, Status: st, Priority: sdk.PlanEntryPriorityMedium})
	}
	s.update(sdk.UpdatePlan(entries...))
}

// retract tells the client that what the failed attempt streamed is void:
// the protocol cannot take back a chunk, so the text gets a line saying
// so, and each announced call (none of which ran) fails.
func (s *session) retract(ev engine.Retract) {
	if ev.TextChars > 0 {
		s.update(sdk.UpdateAgentMessageText("\n\n(withdrawn: " + ev.Reason + "; the answer starts again)\n\n"))
	}
	failed := sdk.ToolCallStatusFailed
	for _, id := range ev.ToolIDs {
		s.update(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Status: &failed,
			Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("withdrawn before it ran: " + ev.Reason))}}})
	}
}
