package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/sandbox"
)

// Bounds of what a hook is given and may answer.
const (
	maxOutput      = 64 << 10 // stdout and stderr, each
	maxReason      = 2000     // characters of a reason or note
	maxPayloadText = 16 << 10 // characters of a message or result in the payload
	killGrace      = time.Second
)

// payload is the JSON object a hook reads on stdin.
type payload struct {
	Event        string          `json:"event"`
	SessionID    string          `json:"session_id,omitempty"`
	TurnID       string          `json:"turn_id,omitempty"`
	Workspace    string          `json:"workspace"`
	Message      *string         `json:"message,omitempty"`
	Tool         string          `json:"tool,omitempty"`
	Action       string          `json:"action,omitempty"`
	CallID       string          `json:"call_id,omitempty"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	Result       *resultPayload  `json:"result,omitempty"`
	Turn         *turnPayload    `json:"turn,omitempty"`
	Notification *notifyPayload  `json:"notification,omitempty"`
}

type resultPayload struct {
	Content   string `json:"content"`
	Success   bool   `json:"success"`
	IsError   bool   `json:"is_error"`
	Category  string `json:"category,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

type turnPayload struct {
	Status string `json:"status"`
	Steps  int    `json:"steps"`
	Error  string `json:"error,omitempty"`
}

type notifyPayload struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

func buildPayload(event, workspace string, c engine.HookCall) []byte {
	p := payload{Event: event, SessionID: c.SessionID, TurnID: c.TurnID, Workspace: workspace, Tool: c.Tool, CallID: c.CallID}
	if event == engine.HookMessageSubmit {
		msg, _ := bound(c.Message, maxPayloadText)
		p.Message = &msg
	}
	if len(c.Input) > 0 && json.Valid(c.Input) {
		p.Arguments = c.Input
		p.Action, _ = argsOf(c.Input)
	}
	if r := c.Result; r != nil {
		content, cut := bound(r.Content, maxPayloadText)
		p.Result = &resultPayload{Content: content, Success: r.Success, IsError: r.IsError, Category: r.Category, Truncated: cut}
	}
	if t := c.Turn; t != nil {
		p.Turn = &turnPayload{Status: string(t.Status), Steps: t.Steps, Error: t.Error}
	}
	if c.Kind != "" {
		p.Notification = &notifyPayload{Kind: c.Kind, Text: c.Text}
	}
	b, _ := json.Marshal(p)
	return b
}

// argsOf reads a call's action and main argument.
func argsOf(in json.RawMessage) (action, subject string) {
	var m map[string]any
	_ = json.Unmarshal(in, &m)
	action, _ = m["action"].(string)
	for _, k := range []string{"command", "path", "pattern", "query", "url", "name"} {
		if s, ok := m[k].(string); ok && s != "" {
			return action, s
		}
	}
	return action, ""
}

func bound(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// answer is what a hook may print on stdout.
type answer struct {
	Decision string            `json:"decision"`
	Reason   string            `json:"reason"`
	Message  string            `json:"message"`
	Env      map[string]string `json:"env"`
}

// outcome is one run of one hook.
type outcome struct {
	At       time.Time
	Took     time.Duration
	Block    bool
	Ask      bool
	Reason   string
	Message  string
	Env      map[string]string
	Problem  string // a failure the user must hear of ("" = the hook answered)
	Summary  string // one line for /hooks
	TimedOut bool
}

// run starts h's command with the payload on stdin in dir, under the
// session's sandbox and with its scrubbed environment (sb.Environ: the
// agent's own without credential-shaped variables), and reads its answer.
// A nil sandbox runs it unconfined, with the same environment rule.
func (h *Hook) run(ctx context.Context, sb *sandbox.Sandbox, dir string, in []byte) outcome {
	o := outcome{At: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := shellCommand(ctx, h.Command)
	cmd.Dir, cmd.Env = dir, sb.Environ("CODEWHALE_HOOK_EVENT="+h.Event, "CODEWHALE_WORKSPACE="+dir)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = killGrace // a grandchild holding the pipes open cannot keep us waiting
	var err error
	if p, serr := sb.Start(cmd); serr != nil {
		err = serr
	} else {
		err = p.Wait()
	}
	o.Took = time.Since(o.At)
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		o.TimedOut = true
		o.Problem = fmt.Sprintf("timed out after %s and was killed", h.Timeout)
	case ctx.Err() != nil:
		o.Problem = "was stopped: the turn was cancelled"
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		o.Block = true
		o.Reason, _ = bound(strings.TrimSpace(stderr.String()), maxReason)
		o.Summary = "blocked (exit 2): " + oneLine(o.Reason)
	case errors.As(err, &ee):
		o.Problem = fmt.Sprintf("failed (exit %d)%s", ee.ExitCode(), stderrTail(stderr.String()))
	case err != nil:
		o.Problem = "could not start: " + err.Error()
	default:
		o.read(stdout.String())
	}
	if o.Problem != "" {
		o.Summary = o.Problem
	}
	return o
}

// read takes a zero exit's stdout: a JSON object, or nothing to say.
func (o *outcome) read(out string) {
	out = strings.TrimSpace(out)
	o.Summary = "ok"
	if !strings.HasPrefix(out, "{") {
		return
	}
	var a answer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		o.Problem = "printed JSON that could not be read (" + err.Error() + ")"
		return
	}
	o.Reason, _ = bound(strings.TrimSpace(a.Reason), maxReason)
	o.Message, _ = bound(a.Message, maxPayloadText)
	o.Env = a.Env
	switch strings.ToLower(strings.TrimSpace(a.Decision)) {
	case "", "allow", "approve", "proceed", "continue":
	case "block", "deny":
		o.Block, o.Summary = true, "blocked: "+oneLine(o.Reason)
	case "ask":
		o.Ask, o.Summary = true, "asked for approval: "+oneLine(o.Reason)
	default:
		o.Problem = fmt.Sprintf("answered an unknown decision %q (block, ask or allow)", a.Decision)
	}
	if o.Summary == "ok" && o.Message != "" {
		o.Summary = "ok: " + oneLine(o.Message)
	}
}

func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 200 {
		s = "…" + string(r[len(r)-200:])
	}
	return ": " + oneLine(s)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// capped keeps the first maxOutput bytes written and drops the rest, so a
// hook that floods its output cannot grow the agent's memory. The buffer is
// a field, not embedded: an embedded bytes.Buffer would lend capped its
// ReadFrom, which io.Copy (how exec.Cmd fills a Stdout that is no file)
// prefers to Write, and the cap would never be consulted.
type capped struct{ buf bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
