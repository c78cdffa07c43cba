package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MissingKeyMessage is the error for a hosted route without an API key
// (CONTRACT.md §10.3); its first line is fixed.
const MissingKeyMessage = "DeepSeek API key not found.\n" +
	"Fix it in one of three ways:\n" +
	"  1. create a key at https://platform.deepseek.com/api_keys\n" +
	"  2. store it with `codewhale auth set --provider deepseek`\n" +
	"  3. or export it: export DEEPSEEK_API_KEY=<your-key>"

// MissingKeyError reports that no API key was found for a hosted route.
type MissingKeyError struct{}

func (MissingKeyError) Error() string { return MissingKeyMessage }

// HTTPError is a non-2xx answer from the provider.
type HTTPError struct {
	Status     int
	Message    string // sanitised body
	Stream     bool   // the request was a streaming one
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	op := "Failed to call DeepSeek Chat API"
	if e.Stream {
		op = "SSE stream request failed"
	}
	s := fmt.Sprintf("%s: HTTP %d: %s", op, e.Status, e.Message)
	if e.Status == 401 || e.Status == 403 {
		s += "\nThe provider refused the API key. Set a valid key with `codewhale auth set --provider deepseek`, " +
			"or export DEEPSEEK_API_KEY=<your-key> (create one at https://platform.deepseek.com/api_keys)."
	}
	return s
}

// Retryable reports whether the status is one the client retries
// (CONTRACT.md §15.24: 429, 499, 500, 502, 503, 504).
func (e *HTTPError) Retryable() bool {
	switch e.Status {
	case 429, 499, 500, 502, 503, 504:
		return true
	}
	return false
}

// NetworkError is a transport failure: connect, TLS, reset, or a timeout
// waiting for response headers.
type NetworkError struct {
	Err     error
	Timeout bool
}

func (e *NetworkError) Error() string { return "Provider request failed: " + e.Err.Error() }
func (e *NetworkError) Unwrap() error { return e.Err }

// StreamError is a failure while reading an open stream: a dropped
// connection, an oversized frame, a stall past the idle timeout, or a stream
// that ended before its finish reason.
type StreamError struct {
	Err     error
	Timeout bool
}

func (e *StreamError) Error() string { return e.Err.Error() }
func (e *StreamError) Unwrap() error { return e.Err }

// sanitizeBody turns an error body into one bounded line: a JSON error
// message when present, whitespace collapsed, cut to 2000 chars, secrets
// redacted.
func sanitizeBody(body []byte, key string) string {
	msg := string(body)
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(env.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case json.Unmarshal(env.Error, &s) == nil && s != "":
			msg = s
		case env.Message != "":
			msg = env.Message
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	msg = RedactSecrets(msg, key)
	if r := []rune(msg); len(r) > 2000 {
		msg = string(r[:2000])
	}
	if msg == "" {
		msg = "(empty body)"
	}
	return msg
}

// RedactSecrets hides key and anything shaped like an `sk-` API key.
func RedactSecrets(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "[REDACTED]")
	}
	for i := 0; ; {
		j := strings.Index(s[i:], "sk-")
		if j < 0 {
			return s
		}
		j += i
		end := j + 3
		for end < len(s) && isKeyChar(s[end]) {
			end++
		}
		if end-j >= 11 {
			s = s[:j] + "sk-[REDACTED]" + s[end:]
			end = j + len("sk-[REDACTED]")
		}
		i = end
	}
}

func isKeyChar(c byte) bool {
	return c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
