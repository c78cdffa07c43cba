package engine

import (
	"encoding/json"
	"time"

	"github.com/codewhale/codewhale/internal/policy"
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

// MessageStarted opens a visible assistant text block.
type MessageStarted struct{ Index int }

// MessageDelta is visible assistant text.
type MessageDelta struct {
	Index   int
	Content string
}

// MessageComplete closes a visible assistant text block.
type MessageComplete struct{ Index int }

// ThinkingStarted opens a reasoning block.
type ThinkingStarted struct{ Index int }

// ThinkingDelta is reasoning text.
type ThinkingDelta struct {
	Index   int
	Content string
}

// ThinkingComplete closes a reasoning block.
type ThinkingComplete struct{ Index int }

// ToolCallStarted announces a call with its final parsed input.
type ToolCallStarted struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolOutcome is the result of one tool call as hosts see it.
type ToolOutcome struct {
	Content  string         // what the model received
	Success  bool           // the tool ran and succeeded
	IsError  bool           // refused or could not run (ToolError)
	Category string         // error category (invalid_input, timeout, …) or "tool_reported_failure"
	Metadata map[string]any // receipts for the UI; never sent to the model
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
}

// TurnUsage is the usage one provider call reported.
type TurnUsage struct {
	Usage      provider.Usage
	DurationMS int64
	Step       int
}

// Status is transient status-line text.
type Status struct{ Message string }

// ErrorEnvelope describes an error (engine.md §1.4).
type ErrorEnvelope struct {
	Message     string
	Category    string // network, authentication, authorization, rate_limit, timeout, invalid_input, parse, tool, state, internal
	Severity    string // info, warning, error, critical
	Recoverable bool
}

// Error is an error the host should show.
type Error struct{ ErrorEnvelope }

// SessionUpdated follows every history append.
type SessionUpdated struct {
	SessionID    string
	Messages     []provider.Message
	SystemPrompt string
	Model        string
	Workspace    string
	Mode         policy.Mode
}

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
func (ToolCallComplete) isEvent()    {}
func (ApprovalRequired) isEvent()    {}
func (TurnUsage) isEvent()           {}
func (Status) isEvent()              {}
func (Error) isEvent()               {}
func (SessionUpdated) isEvent()      {}
func (TurnComplete) isEvent()        {}
