package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// Event is something the engine tells its host (TUI, exec, tests). Every
// host consumes the same stream.
type Event interface{ isEvent() }

// TurnStarted opens a turn.
type TurnStarted struct {
	TurnID    string
	CreatedAt time.Time
}

// ToolRequestSnapshot carries the bounded /tools capture of a prepared
// request; it replaces the previous one.
type ToolRequestSnapshot struct{ Snapshot *ToolSnapshot }

// MessageStarted opens a visible assistant text block: the stream turned
// to text. A step may open several; one MessageComplete ends the step's.
type MessageStarted struct{}

// MessageDelta is visible assistant text.
type MessageDelta struct{ Content string }

// MessageComplete closes the step's visible assistant text.
type MessageComplete struct{}

// ThinkingStarted opens a reasoning block.
type ThinkingStarted struct{}

// ThinkingDelta is reasoning text.
type ThinkingDelta struct{ Content string }

// ThinkingComplete closes a reasoning block: text or a tool call followed
// it, or the answer ended.
type ThinkingComplete struct{}

// ToolCallStarted announces a call with its final parsed input.
type ToolCallStarted struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolCallProgress is the live tail of a running call's output (a
// foreground Bash command): its last tools.ProgressLines lines, at most
// tools.ProgressChars characters, redacted, at most one per
// tools.ProgressInterval per call. Each replaces the previous; none
// follows the call's ToolCallComplete. Hosts may ignore it: the model
// never sees it.
type ToolCallProgress struct {
	ID     string
	Name   string
	Output string
}

// ToolOutcome is the result of one tool call as hosts see it.
type ToolOutcome struct {
	Content  string           // what the model received
	Success  bool             // the tool ran and succeeded
	IsError  bool             // refused or could not run (ToolError)
	Category string           // error category (invalid_input, timeout, …) or "tool_reported_failure"
	Metadata map[string]any   // receipts for the UI; never sent to the model
	images   []provider.Block // the tool's images, added to the result message
}

// ToolCallComplete reports a call's outcome; there is exactly one per call.
type ToolCallComplete struct {
	ID          string
	Name        string
	Input       json.RawMessage
	Result      ToolOutcome
	StartedAt   time.Time
	CompletedAt time.Time
}

// ApprovalRequired asks the host to approve or deny a call.
type ApprovalRequired struct {
	ID            string
	ToolName      string
	Description   string
	Input         json.RawMessage
	ApprovalKey   string
	GroupingKey   string
	IntentSummary string
	// Reason says why the call needs an explicit approval ("writes
	// .git/config, which decides what git runs"); "" for an ordinary one.
	Reason string
	// ForcePrompt marks a call only a person's yes to this one call
	// approves: the card offers no "allow for the session", and the engine
	// ignores one (ApproveToolCall.ForSession).
	ForcePrompt     bool
	SandboxReadOnly bool
	// Direct marks the person's own command (RunToolCall, `!cmd`): no
	// model turn runs, so the card offers no "Abort the turn" and has no
	// intent to show.
	Direct bool
	// Authority is every authority flag a tasks create or agent start asks
	// to grant (auto_approve, trust_mode, allow_shell, mode, model, …, as
	// written in the input), or the authority an automation change leaves
	// its runs (tools.Grant.Map: runs_with, the flags, lowered_from); nil
	// for other calls.
	Authority map[string]any
	// SaveRule is the exact allow rule "Always allow this" would write to
	// the global permissions.toml ("" when the call cannot get one: an
	// explicit approval, a pipeline, no rule file).
	SaveRule string
}

// TurnUsage is the usage one provider call reported. Child marks the calls
// a tool made itself (rlm's child queries), counted in the session's usage
// but not a step of the turn.
type TurnUsage struct {
	Usage      provider.Usage
	DurationMS int64
	Step       int
	Child      bool
	Model      string // the model that answered ("" for a child's usage)
	// Unreported: the server sent no usage for this step; Usage is empty
	// and means unknown, not zero.
	Unreported bool
}

// Status is status-line text. Keep marks a notice the user must still be
// able to read after the turn (hooks, a command's scope, project files
// changed on disk — CONTRACT.md §17): the TUI writes it into the
// transcript and headless runs print it; the rest is transient.
type Status struct {
	Message string
	Keep    bool
}

// Retry says the provider request failed and is re-sent after Wait
// (CONTRACT.md §9.12). Every retry and every wait is announced.
type Retry struct {
	Attempt int    // the attempt about to start; 2 is the first retry
	Max     int    // the most attempts the request may make
	Reason  string // "Rate limited (429)", "Stream stalled (no data for 2m0s)", …
	// Status is the HTTP status that caused it (429 when rate limited), 0
	// for other failures; a sub-agent's 429 paces its siblings' launches.
	Status int
	Wait   time.Duration
}

// Line is the text hosts show, e.g. "Rate limited (429) — retrying in 27 s ·
// attempt 2/5".
func (r Retry) Line() string {
	return fmt.Sprintf("%s — retrying in %s · attempt %d/%d", r.Reason, waitText(r.Wait), r.Attempt, r.Max)
}

func waitText(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}

// Retract withdraws everything the failed attempt of the current step
// streamed, because the request is being re-sent: its visible text
// (MessageStarted/MessageDelta), its reasoning and the tool calls it
// announced (none of which ran). Hosts drop them; the new attempt streams
// the answer from the start. A Retry event follows.
type Retract struct {
	TextChars int      // characters (runes) of visible text withdrawn
	ToolIDs   []string // announced calls withdrawn
	Reason    string
}

// ErrorEnvelope describes an error (CONTRACT.md §8.4).
type ErrorEnvelope struct {
	Message     string
	Category    string // network, authentication, authorization, rate_limit, timeout, invalid_input, parse, tool, state, internal
	Severity    string // info, warning, error, critical
	Recoverable bool
}

// Error is an error the host should show.
type Error struct{ ErrorEnvelope }

// SessionUpdated follows every change of the history. It carries only what
// changed: the history from index Start on is Messages. An append has Start
// at the old length and the new message alone; a compaction, a cut
// (RewindHistory), a fork or a replaced session has Start 0 and the whole
// new history. A host that applies every SessionUpdated in order (Apply)
// holds the engine's history without the engine copying it on each
// message. The messages are shared: read them, never change them.
type SessionUpdated struct {
	SessionID string
	Start     int
	Messages  []provider.Message
}

// Apply returns hist (the history as of the previous update) with u
// applied. An append extends hist in place; a replacement builds a new
// slice, so a caller's earlier views of hist stay valid.
func (u SessionUpdated) Apply(hist []provider.Message) []provider.Message {
	if u.Start >= len(hist) {
		return append(hist, u.Messages...)
	}
	out := make([]provider.Message, 0, u.Start+len(u.Messages))
	return append(append(out, hist[:u.Start]...), u.Messages...)
}

// SettingsChanged confirms a settings op (ChangeMode, SetReasoningEffort,
// SetTrust) or a replaced session's mode: Settings is the engine's new
// value, which a running turn adopts at its next step.
type SettingsChanged struct{ Settings Settings }

// TurnStatus is how a turn ended.
type TurnStatus string

const (
	TurnCompleted   TurnStatus = "completed"
	TurnInterrupted TurnStatus = "interrupted"
	TurnFailed      TurnStatus = "failed"
)

// TurnComplete closes a turn after all bookkeeping.
type TurnComplete struct {
	TurnID           string
	Usage            provider.Usage
	Status           TurnStatus
	Error            string
	ErrorCategory    string
	ApprovalRequired bool // a call needed approval that no one could give
	MaxStepsReached  bool
	ToolCatalogSHA   string // digest of the last request's tools field
	Steps            int
}

func (TurnStarted) isEvent()         {}
func (ToolRequestSnapshot) isEvent() {}
func (MessageStarted) isEvent()      {}
func (MessageDelta) isEvent()        {}
func (MessageComplete) isEvent()     {}
func (ThinkingStarted) isEvent()     {}
func (ThinkingDelta) isEvent()       {}
func (ThinkingComplete) isEvent()    {}
func (ToolCallStarted) isEvent()     {}
func (ToolCallProgress) isEvent()    {}
func (ToolCallComplete) isEvent()    {}
func (ApprovalRequired) isEvent()    {}
func (TurnUsage) isEvent()           {}
func (Status) isEvent()              {}
func (Retry) isEvent()               {}
func (Retract) isEvent()             {}
func (Error) isEvent()               {}
func (SessionUpdated) isEvent()      {}
func (SettingsChanged) isEvent()     {}
func (TurnComplete) isEvent()        {}
