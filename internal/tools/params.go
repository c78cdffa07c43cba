package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Params is a tool's parameter contract derived from one Go struct T
// (docs/ARCHITECTURE.md §6): the published JSON schema comes from T's
// fields (json names, `jsonschema` descriptions, omitempty = optional) plus
// the enums a tag cannot state, and Decode reads an input into a T through
// the strict helpers, so schema and decoding cannot drift apart.
//
// T's fields may be string, bool, int, []string; other kinds are a
// programming error reported by Schema.
type Params[T any] struct {
	tool  string
	enums map[string][]string
	check func(*Decoded[T]) error
	once  func() (map[string]any, error)
}

// Decoded is one decoded input: the typed value and which keys were sent.
type Decoded[T any] struct {
	In   T
	args Args
}

// Has reports whether the input carried field (JSON null counts as absent).
func (d *Decoded[T]) Has(field string) bool { return d.args.Has(field) }

// Missing is the contract's error for an absent required field (§2.3 of
// CONTRACT.md): MissingField from an empty input, otherwise InvalidInput
// naming what was sent.
func (d *Decoded[T]) Missing(field string) error { return d.args.Missing(field) }

// NewParams returns T's contract for tool. enums lists, per JSON property,
// the allowed values in published order; check applies defaults and the
// rules with exact model-visible messages after decoding (nil: none).
func NewParams[T any](tool string, enums map[string][]string, check func(*Decoded[T]) error) *Params[T] {
	p := &Params[T]{tool: tool, enums: enums, check: check}
	p.once = sync.OnceValues(p.derive)
	return p
}

// Schema is the published input schema. It is built once and shared; callers
// must not modify it. It panics if T cannot be described, which a test of
// every tool's schema catches before release.
func (p *Params[T]) Schema() map[string]any {
	s, err := p.once()
	if err != nil {
		panic(err)
	}
	return s
}

// derive infers the schema from T with jsonschema-go and shapes it as the
// registry publishes schemas: a plain JSON object, with no
// additionalProperties (unknown keys are the tool's to refuse or ignore).
func (p *Params[T]) derive() (map[string]any, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("%s parameters: %w", p.tool, err)
	}
	s.AdditionalProperties = nil
	for prop, values := range p.enums {
		ps, ok := s.Properties[prop]
		if !ok {
			return nil, fmt.Errorf("%s parameters: enum for unknown property %q", p.tool, prop)
		}
		ps.Enum = make([]any, len(values))
		for i, v := range values {
			ps.Enum[i] = v
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%s parameters: %w", p.tool, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s parameters: %w", p.tool, err)
	}
	return m, nil
}

// Decode parses raw once: a JSON object (null fields absent), each known
// field read strictly by its Go type (a wrong type is refused, never
// coerced), then check. Every failure is a *Error with the contract's text;
// keys T does not name are left to the schema and the tool.
func (p *Params[T]) Decode(raw json.RawMessage) (*Decoded[T], error) {
	args, err := ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	d := &Decoded[T]{args: args}
	v := reflect.ValueOf(&d.In).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := jsonName(f)
		if name == "" || !args.Has(name) {
			continue
		}
		if err := setField(v.FieldByIndex(f.Index), args, name); err != nil {
			return nil, err
		}
	}
	if p.check != nil {
		if err := p.check(d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// jsonName is a field's JSON key ("" for unexported or `json:"-"` fields).
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch tag {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return tag
}

// setField reads args[name] with the strict helper for dst's kind.
func setField(dst reflect.Value, args Args, name string) error {
	switch dst.Kind() {
	case reflect.String:
		s, _, err := args.String(name)
		dst.SetString(s)
		return err
	case reflect.Bool:
		b, _, err := args.Bool(name)
		dst.SetBool(b)
		return err
	case reflect.Int:
		n, _, err := args.Int(name)
		dst.SetInt(int64(n))
		return err
	case reflect.Slice:
		if dst.Type().Elem().Kind() == reflect.String {
			ss, _, err := args.StringList(name)
			dst.Set(reflect.ValueOf(ss))
			return err
		}
	}
	return ExecutionFailed("parameter %q has a Go type (%s) the decoder does not read", name, dst.Type())
}
