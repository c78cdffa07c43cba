package engine

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/catalog"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

// turn is the state of one running turn.
type turn struct {
	e            *Engine
	id           string
	step         int
	steps        int        // steps begun (a re-sent step counts once): TurnComplete.Steps
	usageMu      sync.Mutex // usage also grows from parallel tool calls (ChildUsage)
	usage        provider.Usage
	client       *provider.Client
	toolset      Toolset
	cat          *catalog.Catalog
	sc           *SurfaceContext
	set          Settings          // the engine's settings as this turn narrowed them (adopt)
	setGen       uint64            // the engine's setGen when set was adopted
	bound        posture.Authority // the settings' authority met with Options.Bound when adopted
	scopeMode    *posture.Mode     // a user command's mode for this turn (nil: the session's)
	system       string            // this turn's system prompt; "" until rendered
	autoApprove  bool
	untrusted    bool // input not from the user: no trust mode this turn
	askOnly      bool // untrusted input that would have been auto-approved: the turn runs under Ask
	recoveries   int  // context-length recoveries used this turn
	digest       string
	budget       int  // this step's per-result budget (characters)
	saveReported bool // a failed save was reported this turn
	info         TurnInfo
	checkpointed bool // Checkpoints.Before ran this turn
	// checkpointStop ends the context Checkpoints.Start was given (nil:
	// Start did not run).
	checkpointStop context.CancelFunc
	// checkpointPending is closed when the last call's Checkpoints.After,
	// run while the model is asked again, has finished (nil: none runs).
	checkpointPending chan struct{}
	scopeAllow        []string // a user command's allowed-tools (nil: no limit)
	direct            bool     // a host's RunToolCall: no model, no history
	// noVision is why the turn's model cannot take images (nil: it can);
	// toldDescribed says the person was told images went as descriptions.
	noVision      error
	toldDescribed bool
	outcome       TurnComplete
}

func (e *Engine) runTurn(ctx context.Context, send SendMessage) (final Event) {
	id := e.opts.NewID()
	e.mu.Lock()
	t, narrowed := e.newTurn(send.Provenance)
	// A denial answers the model's retries, not the user's next message.
	clear(e.denied)
	model := e.sess.Model
	e.mu.Unlock()
	t.id, t.outcome = id, TurnComplete{TurnID: id, Status: TurnCompleted}
	// TurnStarted is the turn's first event (CONTRACT.md §9.1): what the
	// turn's start says about it — the narrowing, a command's scope —
	// belongs to the turn a host has opened.
	e.emit(TurnStarted{TurnID: t.id, CreatedAt: e.opts.Clock()})
	if narrowed {
		e.emit(Status{Message: fmt.Sprintf("Input from %s does not inherit auto-approval or Full Access; this turn runs under Ask.", send.Provenance)})
	}
	t.applyScope(send.Scope, &model)
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("The engine hit an internal error and stopped this turn: %v. Your session is intact — send your message again to retry.", p)
			slog.Error("engine turn panicked", "turn", t.id, "panic", p, "stack", string(debug.Stack()))
			e.emit(Error{ErrorEnvelope{Message: msg, Category: "internal", Severity: "critical"}})
			t.outcome.Status, t.outcome.Error, t.outcome.ErrorCategory = TurnFailed, msg, "internal"
		}
		final = t.finish()
	}()
	client, err := e.newClient(model)
	if err != nil {
		t.fail(ErrorEnvelope{Message: "Failed to send message: " + err.Error(), Category: classify(err), Severity: "error"})
		return nil // the deferred finish sets final
	}
	t.client, t.noVision = client, client.CheckVision()
	if t.refuseImages(send) {
		return nil // the deferred finish reports it
	}
	if model == "" { // the route's default: the client named it (a local server's first model)
		e.mu.Lock()
		e.sess.Model = client.Model()
		e.mu.Unlock()
	}
	if e.opts.TurnStart != nil {
		for _, line := range e.opts.TurnStart() {
			e.emit(Status{Message: line, Keep: true})
		}
	}
	if notice := e.backgroundNotices(); notice != "" {
		e.appendMessage(provider.EngineText(notice))
	}
	e.mu.Lock()
	t.info = TurnInfo{SessionID: e.sess.ID, TurnID: t.id, Prompt: send.Content, MessageIndex: len(e.sess.Messages)}
	e.mu.Unlock()
	var ok bool
	if send.Content, ok = t.submitHooks(ctx, send); !ok {
		return nil // blocked: the deferred finish reports it
	}
	t.info.Prompt = send.Content
	t.checkpointStart(ctx)
	// The user's message is saved while the turn's tools are built (the
	// fsyncs and the schemas are the two waits before the first request),
	// and announced once it is saved, as appendMessage does.
	um := userMessage(send.Content, t.turnMeta(send.Provenance), send.Images)
	ev := e.add(um)
	saved := make(chan struct{})
	go func() {
		defer close(saved)
		e.save(describeMessage(um), um)
	}()
	defer func() { <-saved }() // a panic below still leaves one writer
	notice := t.prepareSurface()
	<-saved
	e.emit(ev)
	if notice != nil {
		e.emit(*notice)
	}
	t.loop(ctx)
	return nil // the deferred finish sets final
}

// newTurn is a turn for input of this provenance under the engine's
// current settings. Input that did not come from the user (sub-agent
// handoffs, imported transcripts) never inherits auto-approval or Full
// Access (CONTRACT.md §9.1); narrowed reports that this turn lost them.
// The caller holds e.mu.
func (e *Engine) newTurn(provenance string) (t *turn, narrowed bool) {
	t = &turn{e: e, untrusted: provenance != "" && provenance != ProvenanceUser, autoApprove: e.opts.AutoApprove}
	if t.untrusted && (e.set.Posture == posture.FullAccess || t.autoApprove) {
		t.autoApprove, t.askOnly, narrowed = false, true, true
	}
	t.adopt(e.set, e.setGen)
	return t, narrowed
}

// adopt makes s (the engine's settings at generation gen) the turn's,
// narrowed as the turn's start narrowed them: input that did not come from
// the user never runs under Full Access or auto-approval, and a user
// command's mode stands unless the session is in Plan (a command never
// widens the mode).
func (t *turn) adopt(s Settings, gen uint64) {
	t.bound = t.e.bounded(posture.Authority{Posture: s.Posture, AllowShell: s.AllowShell, Trust: s.Trust})
	s.Posture, s.AllowShell, s.Trust = t.bound.Posture, t.bound.AllowShell, t.bound.Trust
	if t.untrusted && (t.askOnly || s.Posture == posture.FullAccess) {
		t.askOnly, s.Posture = true, posture.Ask
	}
	if m := t.scopeMode; m != nil && (*m == posture.Plan || s.Mode != posture.Plan) {
		s.Mode = *m
	}
	t.set, t.setGen = s, gen
}

// env is the TurnEnv the turn's tools are built for.
func (t *turn) env() TurnEnv {
	return TurnEnv{Mode: t.set.Mode, Posture: t.set.Posture, AllowShell: t.set.AllowShell,
		AutoApprove: t.autoApprove, Trust: t.trustMode()}
}

// buildSurface builds the turn's registry, catalog and /tools surface
// context once (CONTRACT.md §9.1).
func (t *turn) buildSurface() {
	if notice := t.prepareSurface(); notice != nil {
		t.e.emit(*notice)
	}
}

// prepareSurface is buildSurface without emitting: it returns the status
// to show (nil: none).
func (t *turn) prepareSurface() *Status {
	t.toolset, t.cat = t.e.surface(t.env(), t.scopeAllow)
	t.sc = NewSurfaceContext(t.toolset.Registry, t.toolset.MCP.Servers, t.client.ProviderName(), t.client.Model(), true)
	if n := t.cat.HeldByBudget(); n > 0 {
		return &Status{Message: fmt.Sprintf("%d MCP tools stay deferred beyond the catalog budget (%d tools, %d KiB sent from the first step); tool_search finds them.",
			n, catalog.MaxEagerMCP, catalog.MaxEagerMCPBytes>>10)}
	}
	return nil
}

func (t *turn) loop(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			t.interrupted()
			return
		}
		if t.saveFailed() {
			return
		}
		t.applySettings()
		t.drainSteers()
		if t.step >= t.e.opts.MaxSteps {
			t.e.emit(Status{Message: "Reached maximum steps"})
			t.outcome.MaxStepsReached = true
			return
		}
		res := t.runStep(ctx)
		switch res {
		case stepRetry:
			continue
		case stepDone, stepFailed, stepInterrupted:
			return
		}
		t.step++
	}
}

type stepOutcome int

const (
	stepContinue stepOutcome = iota
	stepRetry
	stepDone
	stepFailed
	stepInterrupted
)

// runStep makes one provider request and handles its answer.
func (t *turn) runStep(ctx context.Context) stepOutcome {
	t.steps = t.step + 1
	req, ok := t.prepare(ctx)
	if !ok {
		return stepFailed
	}
	snap := CaptureSnapshot(t.id, t.step, req.Tools, t.sc)
	if snap.ActiveToolCatalogSHA256 != nil {
		t.digest = *snap.ActiveToolCatalogSHA256
	}
	t.e.emit(ToolRequestSnapshot{Snapshot: snap})
	t.e.setState(Streaming)
	started := t.e.opts.Clock()
	sr := t.stream(ctx, req)
	if sr.usage != nil {
		t.usage.Add(sr.usage)
	}
	if sr.usage.Reported() {
		t.e.emit(TurnUsage{Usage: *sr.usage, DurationMS: time.Since(started).Milliseconds(), Step: t.step + 1,
			Model: t.client.Model()})
	} else if sr.err == nil && !sr.cancelled { // a server that reports no usage (CONTRACT.md §10.8)
		t.e.emit(TurnUsage{DurationMS: time.Since(started).Milliseconds(), Step: t.step + 1, Model: t.client.Model(),
			Unreported: true})
	}
	if sr.cancelled {
		t.keepInterruptedText(sr)
		t.dropCalls(sr, ToolOutcome{Content: notExecutedText, Category: "cancelled"})
		t.interrupted()
		return stepInterrupted
	}
	if sr.err != nil {
		return t.streamFailed(ctx, sr)
	}
	t.commit(sr)
	if len(sr.calls) == 0 {
		return t.noToolCalls(sr)
	}
	if !t.runBatch(ctx, sr.calls) {
		t.interrupted()
		return stepInterrupted
	}
	t.e.emit(Status{Message: "Continuing — tool results"})
	return stepContinue
}

// noToolCalls is the ladder of a step that called no tools (CONTRACT.md §9.6).
func (t *turn) noToolCalls(sr *streamResult) stepOutcome {
	if t.drainSteers() {
		t.e.emit(Status{Message: "Continuing — queued steer input"})
		t.step++
		return stepRetry
	}
	if notice := t.e.backgroundNotices(); notice != "" {
		t.e.appendMessage(provider.EngineText(notice))
		t.e.emit(Status{Message: "Continuing — background jobs finished"})
		t.step++
		return stepRetry
	}
	if sr.text.Len() == 0 && sr.thinking.Len() > 0 {
		t.e.emit(Status{Message: "Model returned reasoning but no answer or tool call; turn ended without output. Send a follow-up to retry."})
	}
	return stepDone
}

// applySettings adopts settings changed since the turn last looked. A
// new mode, posture or allow-shell takes effect on the next request: the
// tools are rebuilt, keeping what this turn already loaded where it still
// exists, and the system prompt is rendered again.
func (t *turn) applySettings() {
	e := t.e
	e.mu.Lock()
	s, gen := e.set, e.setGen
	e.mu.Unlock()
	if gen == t.setGen && e.bounded(posture.Authority{Posture: s.Posture, AllowShell: s.AllowShell, Trust: s.Trust}) == t.bound {
		return
	}
	old := t.set
	t.adopt(s, gen)
	if old.Mode == t.set.Mode && old.Posture == t.set.Posture && old.AllowShell == t.set.AllowShell {
		return
	}
	t.system = "" // the prompt states the mode, the posture and the tools
	var loaded []string
	for _, en := range t.cat.Entries() {
		if en.Deferred() && t.cat.IsActive(en.Tool.Name) {
			loaded = append(loaded, en.Tool.Name)
		}
	}
	t.buildSurface()
	t.cat.Activate(loaded...)
	e.emit(Status{Message: fmt.Sprintf("Now in %s mode (%s).", t.set.Mode.Title(), t.set.Posture)})
}

// drainSteers appends queued steer input as user messages.
func (t *turn) drainSteers() bool {
	e := t.e
	e.mu.Lock()
	steers := e.steers
	e.steers = nil
	e.mu.Unlock()
	for _, s := range steers {
		e.appendMessage(provider.Message{Role: provider.RoleUser, Origin: provider.OriginUser, Content: []provider.Block{
			provider.TextBlock(s), provider.TextBlock(t.turnMeta(ProvenanceUser))}})
		e.emit(Status{Message: "Steer input accepted: " + firstRunes(s, 120)})
	}
	return len(steers) > 0
}

func firstRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

func (t *turn) interrupted() {
	t.e.emit(Status{Message: "Request cancelled"})
	t.outcome.Status = TurnInterrupted
	t.outcome.ErrorCategory = "cancelled"
}

func (t *turn) fail(env ErrorEnvelope) {
	t.e.emit(Error{env})
	t.outcome.Status = TurnFailed
	if t.outcome.Error == "" {
		t.outcome.Error, t.outcome.ErrorCategory = env.Message, env.Category
	}
}

// finish does the turn's bookkeeping and returns its TurnComplete, which
// the caller emits once the turn slot is free. The turn_end hooks run last,
// so their payload is the TurnComplete the host receives.
func (t *turn) finish() Event {
	t.checkpointEnd()
	t.outcome.Usage = t.usage
	t.outcome.ToolCatalogSHA = t.digest
	t.outcome.Steps = t.steps
	t.e.mu.Lock()
	t.e.sess.Usage.Add(&t.usage)
	t.e.mu.Unlock()
	t.e.save("the session's token totals") // records the new totals
	t.saveFailed()
	t.endHooks()
	return t.outcome
}

// saveFailed stops the turn when a save failed: it reports exactly what
// was not saved and fails the turn (category state). It reports whether it
// did.
func (t *turn) saveFailed() bool {
	msg := t.e.takeSaveFailure()
	if msg == "" {
		return false
	}
	if t.saveReported {
		return true // later saves of this turn failed too; the first report stands
	}
	t.saveReported = true
	t.outcome.Error, t.outcome.ErrorCategory = "", ""
	t.fail(ErrorEnvelope{Message: msg, Category: "state", Severity: "error"})
	return true
}

// appendMessage adds m to the history, saves it and announces it.
func (e *Engine) appendMessage(m provider.Message) {
	ev := e.add(m)
	e.save(describeMessage(m), m)
	e.emit(ev)
}

// addMessage adds m to the history and announces it without saving it: a
// tool result, saved when its call completed.
func (e *Engine) addMessage(m provider.Message) { e.emit(e.add(m)) }

// add appends m to the history; the update it returns carries m alone.
func (e *Engine) add(m provider.Message) SessionUpdated {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sess.Messages = append(e.sess.Messages, m)
	return SessionUpdated{SessionID: e.sess.ID, Start: len(e.sess.Messages) - 1, Messages: []provider.Message{m}}
}

func (e *Engine) history() []provider.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]provider.Message(nil), e.sess.Messages...)
}

// backgroundNotices returns the runtime message announcing finished
// background jobs, or "".
func (e *Engine) backgroundNotices() string {
	if e.opts.BackgroundNotices == nil {
		return ""
	}
	return e.redact(strings.TrimSpace(e.opts.BackgroundNotices()))
}
