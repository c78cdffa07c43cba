package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrorKind classifies a refusal (CONTRACT.md §2.1).
type ErrorKind int

const (
	KindInvalidInput ErrorKind = iota
	KindMissingField
	KindPathEscape
	KindExecutionFailed
	KindTimeout
	KindCancelled
	KindNotAvailable
	KindPermissionDenied
)

// Category is the snake_case label of the kind used in receipts and in
// stream-json tool results.
func (k ErrorKind) Category() string {
	return [...]string{"invalid_input", "missing_field", "path_escape", "execution_failed", "timeout",
		"cancelled", "not_available", "permission_denied"}[k]
}

// Error is a tool call that was refused or could not run. Msg, Field, Path
// and Seconds are used according to Kind.
type Error struct {
	Kind    ErrorKind
	Msg     string
	Field   string // MissingField; also the bad field of InvalidInput when known
	Path    string // PathEscape
	Seconds int    // Timeout
}

func (e *Error) Error() string { return e.Render("") }

// InvalidInput returns an invalid-input error.
func InvalidInput(format string, a ...any) *Error {
	return &Error{Kind: KindInvalidInput, Msg: fmt.Sprintf(format, a...)}
}

// MissingField returns a missing-field error.
func MissingField(field string) *Error { return &Error{Kind: KindMissingField, Field: field} }

// PathEscape returns a workspace-escape error.
func PathEscape(path string) *Error { return &Error{Kind: KindPathEscape, Path: path} }

// ExecutionFailed returns an execution-failed error.
func ExecutionFailed(format string, a ...any) *Error {
	return &Error{Kind: KindExecutionFailed, Msg: fmt.Sprintf(format, a...)}
}

// Timeout returns a timeout error.
func Timeout(seconds int) *Error { return &Error{Kind: KindTimeout, Seconds: seconds} }

// Cancelled returns a cancellation error.
func Cancelled(msg string) *Error { return &Error{Kind: KindCancelled, Msg: msg} }

// NotAvailable returns a not-available error.
func NotAvailable(format string, a ...any) *Error {
	return &Error{Kind: KindNotAvailable, Msg: fmt.Sprintf(format, a...)}
}

// PermissionDenied returns a permission error.
func PermissionDenied(format string, a ...any) *Error {
	return &Error{Kind: KindPermissionDenied, Msg: fmt.Sprintf(format, a...)}
}

// AsError converts any error into a *Error; unknown errors become
// ExecutionFailed with their text.
func AsError(err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{Kind: KindExecutionFailed, Msg: err.Error()}
}

var modeWords = []string{"plan mode", "act mode", "operate mode", "/mode", "allow_shell"}

func containsAnyFold(s string, subs ...string) bool {
	l := strings.ToLower(s)
	for _, sub := range subs {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// Render is the text the model sees for this error from tool (CONTRACT.md §2.2),
// without the validation-feedback suffix.
func (e *Error) Render(tool string) string {
	switch e.Kind {
	case KindInvalidInput:
		return fmt.Sprintf("Invalid input for tool '%s': %s", tool, e.Msg)
	case KindMissingField:
		return fmt.Sprintf("Tool '%s' is missing required field '%s'", tool, e.Field)
	case KindPathEscape:
		return fmt.Sprintf("Path escapes workspace: %s. Use a workspace-relative path or enable trust mode.", e.Path)
	case KindTimeout:
		return fmt.Sprintf("Tool '%s' timed out after %ds. Try a narrower scope or a longer timeout.", tool, e.Seconds)
	case KindNotAvailable:
		if containsAnyFold(e.Msg, append([]string{"is not registered", "current tool catalog", "did you mean:", "feature flag"}, modeWords...)...) {
			return e.Msg
		}
		return fmt.Sprintf("Tool '%s' is not available: %s. Check mode, feature flags, or tool name.", tool, sentence(e.Msg))
	case KindPermissionDenied:
		if containsAnyFold(e.Msg, append([]string{"denied by user"}, modeWords...)...) {
			return e.Msg
		}
		return fmt.Sprintf("Tool '%s' was denied: %s. Adjust approval mode or request permission.", tool, sentence(e.Msg))
	default: // ExecutionFailed, Cancelled
		return e.Msg
	}
}

// sentence is msg without its closing full stop, for a wrapper that adds
// one ("…approval.. Adjust" otherwise).
func sentence(msg string) string { return strings.TrimSuffix(msg, ".") }

// ModelText is the full text sent to the model: Render plus, for the kinds
// the model can fix, a one-line JSON of validation feedback.
func (e *Error) ModelText(tool string, schema map[string]any) string {
	text := e.Render(tool)
	var category string
	var bad any
	switch e.Kind {
	case KindInvalidInput:
		category = "invalid_input"
		if e.Field != "" {
			bad = e.Field
		}
	case KindMissingField:
		category, bad = "missing_field", e.Field
	case KindPathEscape:
		category, bad = "path_escape", "path"
	case KindNotAvailable:
		category, bad = "tool_not_available", "tool_name"
	default:
		return text
	}
	var shape any = schema
	if schema == nil {
		shape = map[string]any{"type": "object", "guidance": fmt.Sprintf("Use the advertised input schema for '%s'", tool)}
	}
	fb, err := json.Marshal(struct {
		Category         string `json:"category"`
		BadField         any    `json:"bad_field"`
		ValidShape       any    `json:"valid_shape"`
		Retryable        bool   `json:"retryable"`
		SideEffectStatus string `json:"side_effect_status"`
	}{category, bad, shape, true, "not_started"})
	if err != nil {
		return text
	}
	return text + "\nTool validation feedback: " + string(fb)
}
