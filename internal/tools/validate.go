package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiled caches compiled schemas by the hash of their JSON, so a registry
// rebuilt every turn does not recompile.
var compiled sync.Map // [32]byte -> *jsonschema.Schema (nil: schema unusable)

func compile(name string, schema map[string]any) *jsonschema.Schema {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	key := sha256.Sum256(raw)
	if v, ok := compiled.Load(key); ok {
		s, _ := v.(*jsonschema.Schema)
		return s
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	url := fmt.Sprintf("mem://tools/%x.json", key[:8])
	var s *jsonschema.Schema
	if err := c.AddResource(url, bytes.NewReader(raw)); err == nil {
		s, err = c.Compile(url)
		if err != nil {
			// A schema we cannot compile (an MCP server's, say) is not
			// enforced here; the tool or server still checks its input.
			slog.Warn("tool schema does not compile; arguments will not be validated", "tool", name, "err", err)
			s = nil
		}
	}
	compiled.Store(key, s)
	return s
}

// Validate checks in against schema and renders a violation as one readable
// InvalidInput line.
func Validate(name string, schema map[string]any, in json.RawMessage) error {
	if schema == nil {
		return nil
	}
	s := compile(name, schema)
	if s == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return InvalidInput("arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return InvalidInput("tool input must be a JSON object")
	}
	if n, ok := hugeNumber(v); ok {
		return InvalidInput("number %.40s… is out of range: numbers must fit a float64", n)
	}
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return InvalidInput("%v", err)
	}
	var parts []string
	var field string
	for _, leaf := range leaves(ve) {
		loc := leaf.InstanceLocation
		if loc == "" {
			loc = "/"
		} else if field == "" {
			field = strings.TrimPrefix(loc, "/")
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", loc, leaf.Message))
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return &Error{Kind: KindInvalidInput, Field: field,
		Msg: "arguments do not match the tool's schema: " + strings.Join(parts, "; ")}
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// hugeNumber finds a number beyond float64's range, with an exponent past
// ±400 (1e-1000010) or written with more than 64 characters: the schema
// validator compares numbers as big.Rat, which panicked (a nil Rat) or cost
// seconds on such a literal in one tool call (found by FuzzArgs).
func hugeNumber(v any) (json.Number, bool) {
	switch v := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil || len(v) > 64 {
			return v, true
		}
		if i := strings.IndexAny(string(v), "eE"); i >= 0 {
			if exp, err := strconv.Atoi(string(v[i+1:])); err != nil || exp > 400 || exp < -400 {
				return v, true
			}
		}
	case map[string]any:
		for _, e := range v {
			if n, ok := hugeNumber(e); ok {
				return n, true
			}
		}
	case []any:
		for _, e := range v {
			if n, ok := hugeNumber(e); ok {
				return n, true
			}
		}
	}
	return "", false
}
