// Package transcript holds the conversation as a list of cells (user,
// assistant, reasoning, tool, error, system) and draws only the rows that
// are visible. Each cell caches its rendered lines keyed by width and
// revision, so a keystroke elsewhere in the UI costs a copy of the visible
// rows, never a re-render of the history.
package transcript

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/tui/termtext"
)

// Kind is what a cell shows.
type Kind uint8

const (
	User Kind = iota
	Assistant
	Thinking
	Tool
	Error
	System
	Notice
)

// Cell is one transcript entry. Text is sanitised when it enters the cell;
// every mutation bumps the revision that keys the render cache.
type Cell struct {
	Kind        Kind
	Severity    string // Error cells: error, critical, warning, info
	Streaming   bool
	Interrupted bool
	Started     time.Time
	Ended       time.Time
	Tool        *ToolCall
	Group       int // tool cells with the same group are drawn as one block

	text  strings.Builder
	rev   uint64
	cache cache
	head  headCache // the stable, already-rendered part of a streaming reply
}

// ToolCall is the state of one tool call.
type ToolCall struct {
	ID      string
	Name    string
	Input   json.RawMessage
	Done    bool
	Outcome engine.ToolOutcome
	// AwaitingApproval is set while an approval card for the call is open.
	AwaitingApproval bool
	// Queued is set while the call waits behind another call's open
	// approval card: it has not started, so it does not spin.
	Queued bool
	// Live is the latest tail of a running call's output
	// (engine.ToolCallProgress); it goes when the call completes.
	Live string
}

// SetLive shows the latest output tail of a running call.
func (c *Cell) SetLive(s string) {
	if c.Tool != nil && !c.Tool.Done {
		c.Tool.Live = clean(s)
		c.rev++
	}
}

// SetAwaitingApproval marks the call as held for approval (or not).
func (c *Cell) SetAwaitingApproval(on bool) {
	if c.Tool != nil && c.Tool.AwaitingApproval != on {
		c.Tool.AwaitingApproval = on
		c.rev++
	}
}

// SetQueued marks the call as waiting behind another call's card (or not).
func (c *Cell) SetQueued(on bool) {
	if c.Tool != nil && c.Tool.Queued != on {
		c.Tool.Queued = on
		c.rev++
	}
}

type cache struct {
	width int
	rev   uint64
	gen   uint64
	lines []string
}

type headCache struct {
	n     int // bytes of text rendered
	width int
	lines []string
}

// NewCell returns a cell of kind with text (sanitised).
func NewCell(kind Kind, text string) *Cell {
	c := &Cell{Kind: kind}
	c.text.WriteString(clean(text))
	return c
}

// NewError returns an error cell with a severity label.
func NewError(severity, text string) *Cell {
	c := NewCell(Error, text)
	c.Severity = severity
	return c
}

// NewTool returns a running tool cell.
func NewTool(id, name string, input json.RawMessage, group int, at time.Time) *Cell {
	return &Cell{Kind: Tool, Group: group, Started: at, Tool: &ToolCall{ID: id, Name: name, Input: input}}
}

// Text is the cell's (sanitised) source text.
func (c *Cell) Text() string { return c.text.String() }

// Append adds streamed text.
func (c *Cell) Append(s string) {
	c.text.WriteString(clean(s))
	c.rev++
}

// SetText replaces the text.
func (c *Cell) SetText(s string) {
	c.text.Reset()
	c.text.WriteString(clean(s))
	c.rev++
}

// Finish ends streaming at t.
func (c *Cell) Finish(t time.Time) {
	c.Streaming = false
	c.Ended = t
	c.rev++
}

// MarkInterrupted ends streaming and marks the cell as cut off.
func (c *Cell) MarkInterrupted(t time.Time) {
	c.Interrupted = true
	c.Finish(t)
}

// Complete records a tool call's outcome.
func (c *Cell) Complete(o engine.ToolOutcome, at time.Time) {
	o.Content = clean(o.Content)
	c.Tool.Outcome = o
	c.Tool.Done = true
	c.Tool.Live = ""
	c.Tool.AwaitingApproval = false
	c.Ended = at
	c.rev++
}

// Touch invalidates the cell's rendering.
func (c *Cell) Touch() { c.rev++ }

// Running reports whether the cell still changes on its own (a spinner or
// a live duration), so it is redrawn every frame.
func (c *Cell) Running() bool {
	switch c.Kind {
	case Tool:
		return !c.Tool.Done
	case Thinking:
		return c.Streaming
	}
	return false
}

// Failed reports a tool call that did not succeed.
func (t *ToolCall) Failed() bool { return t.Done && (!t.Outcome.Success || t.Outcome.IsError) }

func clean(s string) string { return termtext.ExpandTabs(termtext.Sanitize(s)) }
