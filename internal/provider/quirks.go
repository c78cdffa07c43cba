package provider

import (
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"sync"
)

// Some OpenAI-compatible servers refuse a request field codewhale sends
// (CONTRACT.md §10.4): a gateway that does not know stream_options, a vLLM
// started without tool-choice support, a max_tokens above what the
// server's context leaves, DeepSeek's thinking field elsewhere. When the
// server's 400 names such a field as the reason, the request is sent again
// without it, once per field, and later requests on the same route leave
// it out; when it does not, the error says which field it was, if any.
// Nothing is dropped on a guess.

// droppable are the fields a request may be re-sent without: each is an
// optimisation or a default the server applies anyway. tools, messages and
// model never are.
var droppable = []string{"stream_options", "tool_choice", "max_tokens", "reasoning_effort", "thinking",
	"temperature", "top_p"}

// Quirks remembers the fields a route's server refused. It is shared by
// the clients of one route (one Config) and safe for concurrent use; the
// zero value is ready.
type Quirks struct {
	mu      sync.Mutex
	dropped map[string]bool
}

func (q *Quirks) drop(field string) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dropped == nil {
		q.dropped = map[string]bool{}
	}
	q.dropped[field] = true
}

// Dropped reports whether field is left out of this route's requests.
func (q *Quirks) Dropped(field string) bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped[field]
}

// reMaxTokens matches the servers' words for an output cap above what
// they allow: vLLM's "'max_tokens' or 'max_completion_tokens' is too
// large", its newer "you requested 65535 output tokens and your prompt
// contains", OpenAI's "max_tokens is too large".
var reMaxTokens = regexp.MustCompile(`(?i)(max_tokens|max_completion_tokens)'?[^.]{0,40}(too large|exceeds|greater than|must be less|at most)|requested \d+ output tokens`)

// rejectionWords say a field was refused, not merely mentioned.
var rejectionWords = []string{"unrecognized", "unknown", "unsupported", "not supported", "not permitted",
	"not allowed", "extra inputs", "extra_forbidden", "invalid", "requires", "does not support"}

// rejectedField names the field a 400's body says the server refused,
// among those sent in body; "" when the message names none.
func rejectedField(he *HTTPError, body []byte) string {
	if he.Status != 400 {
		return ""
	}
	var sent map[string]json.RawMessage
	if json.Unmarshal(body, &sent) != nil {
		return ""
	}
	msg := strings.ToLower(he.Message)
	for _, f := range droppable {
		if _, ok := sent[f]; !ok {
			continue
		}
		if he.Param == f || (f == "max_tokens" && reMaxTokens.MatchString(he.Message)) {
			return f
		}
		named := strings.Contains(msg, f) || strings.Contains(msg, strings.ReplaceAll(f, "_", " "))
		if named && containsAny(msg, rejectionWords) {
			return f
		}
	}
	return ""
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// withoutField re-encodes body without field.
func withoutField(body []byte, field string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	delete(m, field)
	return json.Marshal(m)
}

// sendAdapting performs one attempt, re-sending without each field the
// server refuses (adapt); the body finally sent is returned with the
// attempt. A failure after a field was dropped names it (HTTPError.Field).
func (c *Client) sendAdapting(send func([]byte) (*attempt, error), body []byte) (*attempt, []byte, error) {
	var dropped []string
	for {
		at, err := send(body)
		if err == nil {
			return at, body, nil
		}
		next, ok := c.adapt(err, body)
		if !ok {
			if he, isHTTP := err.(*HTTPError); isHTTP && len(dropped) > 0 {
				he.Field = strings.Join(dropped, ", ")
			}
			return nil, body, err
		}
		dropped = append(dropped, rejectedField(err.(*HTTPError), body))
		body = next
	}
}

// stripDropped removes the fields q has dropped from an encoded body.
func (q *Quirks) stripDropped(body []byte) []byte {
	for _, f := range droppable {
		if q.Dropped(f) {
			if b, err := withoutField(body, f); err == nil {
				body = b
			}
		}
	}
	return body
}

// adapt is called with a failed attempt's error: when the server refused a
// droppable field it sent, it returns the body without that field (and
// remembers it for the route); ok is false otherwise.
func (c *Client) adapt(err error, body []byte) ([]byte, bool) {
	he, isHTTP := err.(*HTTPError)
	if !isHTTP {
		return nil, false
	}
	field := rejectedField(he, body)
	if field == "" {
		return nil, false
	}
	next, err2 := withoutField(body, field)
	if err2 != nil {
		return nil, false
	}
	c.cfg.Quirks.drop(field)
	slog.Debug("provider refused a request field; sending without it", "provider", c.cfg.ProviderID, "field", field,
		"reason", he.Message)
	return next, true
}
