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
// The zero value is DeepSeek's.
type MissingKeyError struct {
	Provider string // the provider id ("openrouter")
	Name     string // its display name ("OpenRouter")
	Env      string // the variable that would hold the key
}

func (e MissingKeyError) Error() string {
	if e.Provider == "" || e.Provider == "deepseek" {
		return MissingKeyMessage
	}
	env := e.Env
	if env == "" {
		env = KeyEnvName(e.Provider)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s API key not found.\nFix it in one of these ways:\n", e.Name)
	n := 1
	if p, ok := LookupPreset(e.Provider); ok && p.KeyURL != "" {
		fmt.Fprintf(&b, "  %d. create a key at %s\n", n, p.KeyURL)
		n++
	}
	fmt.Fprintf(&b, "  %d. store it with `codewhale auth set --provider %s`\n", n, e.Provider)
	fmt.Fprintf(&b, "  %d. or export it: export %s=<your-key>", n+1, env)
	return b.String()
}

// HTTPError is a non-2xx answer from the provider.
type HTTPError struct {
	Status     int
	Message    string // sanitised body
	Stream     bool   // the request was a streaming one
	RetryAfter time.Duration
	// Provider and Name say whose server answered (zero: DeepSeek's);
	// KeyEnv is the variable its key is read from; NoKey that the request
	// carried no key.
	Provider, Name, KeyEnv string
	NoKey                  bool
	// Param is the field an OpenAI-style error names (error.param);
	// Field the request field the server refused (quirks.go).
	Param, Field string
}

func (e *HTTPError) Error() string {
	name := e.Name
	if name == "" {
		name = "DeepSeek"
	}
	op := "Failed to call " + name + " Chat API"
	if e.Stream {
		op = "SSE stream request failed"
	}
	s := fmt.Sprintf("%s: HTTP %d: %s", op, e.Status, e.Message)
	if e.Status == 401 || e.Status == 403 {
		s += "\n" + e.keyAdvice()
	}
	if e.Field != "" {
		s += fmt.Sprintf("\nThis answered the request sent again without %s, which the server had refused first.", e.Field)
	} else if e.Param != "" {
		s += fmt.Sprintf("\nThe server named the request field %q.", e.Param)
	}
	return s
}

// errorParam is error.param of an OpenAI-style error body ("" when none).
func errorParam(body []byte) string {
	var env struct {
		Error struct {
			Param string `json:"param"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	return env.Error.Param
}

// keyAdvice is what to do when the server refused the key (or wanted one).
func (e *HTTPError) keyAdvice() string {
	id, env := e.Provider, e.KeyEnv
	if id == "" {
		id = "deepseek"
	}
	if env == "" {
		env = KeyEnvName(id)
	}
	what := "The provider refused the API key."
	if e.NoKey {
		what = "The server wants an API key and none was sent."
	}
	s := fmt.Sprintf("%s Set a valid key with `codewhale auth set --provider %s`, or export %s=<your-key>", what, id, env)
	if p, ok := LookupPreset(id); ok && p.KeyURL != "" {
		s += " (create one at " + p.KeyURL + ")"
	}
	return s + "."
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
