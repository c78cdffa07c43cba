package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Authority is what the session creating a task may grant it: a task never
// gets more than its creator has (issue 11 §5). Posture is the creator's
// approval_policy value (suggest, auto, bypass, never).
type Authority struct {
	Posture     string
	AutoApprove bool // the creator auto-approves ordinary prompts (exec --auto)
	Trust       bool
	AllowShell  bool
}

// Cap narrows a task request to a's authority and names what it took away.
// The task records the creator's posture and runs under it.
func (a Authority) Cap(req *NewTask) []string {
	var capped []string
	full := a.Posture == "bypass"
	if req.AutoApprove && !a.AutoApprove && !full {
		req.AutoApprove = false
		capped = append(capped, "auto_approve")
	}
	if req.TrustMode && !a.Trust && !full {
		req.TrustMode = false
		capped = append(capped, "trust_mode")
	}
	if req.AllowShell && !a.AllowShell && !full {
		req.AllowShell = false
		capped = append(capped, "allow_shell")
	}
	req.Posture = a.Posture
	if req.Posture == "" {
		req.Posture = "suggest"
	}
	return capped
}

// cappedNote is the model-visible account of what a create did not grant.
func cappedNote(capped []string, posture string) string {
	if len(capped) == 0 {
		return ""
	}
	return fmt.Sprintf("Not granted: %s. A task gets no more authority than the session that creates it, and this "+
		"session (approval_policy %s) does not have it. The task runs headless under that posture: calls that "+
		"need approval are refused and recorded in its tool_calls.", strings.Join(capped, ", "), posture)
}

// RunAuthority is the authority a queued task runs with: its recorded
// posture and flags. A record from before postures were recorded has no
// known creator, so it gets the least: Ask, nothing auto-approved.
func (r TaskRecord) RunAuthority() Authority {
	if r.Posture == "" {
		return Authority{Posture: "suggest", AllowShell: r.AllowShell}
	}
	return Authority{Posture: r.Posture, AutoApprove: r.AutoApprove, Trust: r.TrustMode, AllowShell: r.AllowShell}
}

// ToolCallRecord is one tool call a task made, kept in its tool_calls so
// every call (and every refusal) is visible after the run.
type ToolCallRecord struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	Success  bool            `json:"success"`
	Refused  bool            `json:"refused"`
	Category string          `json:"category,omitempty"`
	Summary  string          `json:"summary"`
	At       time.Time       `json:"at"`
}

// maxToolCalls bounds a record's tool_calls; the timeline says when more
// were made.
const maxToolCalls = 500

// RecordToolCall appends a call the task made to its record.
func (s *Store) RecordToolCall(taskID string, c ToolCallRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.resolve(taskID)
	if err != nil {
		return err
	}
	if len(rec.ToolCalls) >= maxToolCalls {
		return nil
	}
	c.Summary = Summarize(c.Summary, 400)
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	rec.ToolCalls = append(rec.ToolCalls, b)
	kind := "tool_call"
	if c.Refused {
		kind = "tool_refused"
	}
	rec.event(c.At, kind, Summarize(c.Name+": "+c.Summary, 160), false)
	return s.persist(rec)
}
