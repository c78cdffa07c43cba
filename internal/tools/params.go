package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Params is a tool's parameter contract derived from one Go struct T
// (docs/ARCHITECTURE.md §6): the published JSON schema comes from T's
// fields (json names, `jsonschema` descriptions, omitempty = optional) plus
// what a tag cannot state (enums, descriptions with backquotes, the
// per-action table), and Decode reads an input into a T through the strict
// helpers, so schema, per-action rules and decoding cannot drift apart.
//
// T's fields may be string, bool, int, uint (published with minimum 0),
// Count, []string and Raw; other kinds
// are a programming error reported by Schema (and by each tool's schema
// test).
type Params[T any] struct {
	tool   string
	key    string // contractKey of T: its row in the generated schemas
	opt    ParamOptions[T]
	fields func() []paramField // T's JSON fields in order, found once
	mu     sync.Mutex
	memo   map[string]schemaResult // SchemaFor's results by action list
}

// paramField is one JSON field of T.
type paramField struct {
	name  string
	index []int
}

type schemaResult struct {
	schema map[string]any
	err    error
}

// ParamOptions is what the Go type cannot say by itself.
type ParamOptions[T any] struct {
	// Enums lists, per JSON property, the allowed values in published order.
	Enums map[string][]string
	// Docs are property descriptions a struct tag cannot hold (they contain
	// backquotes). A property described by both is a programming error.
	Docs map[string]string
	// Bounds are integer ranges the schema publishes (minimum, maximum)
	// and the decoder enforces, refusing a value outside with the schema
	// validator's text (what such a call got before the type existed).
	Bounds map[string]Bound
	// Closed publishes `additionalProperties: false`, and Decode refuses a
	// key T does not name with the schema validator's text.
	Closed bool
	// Actions is the per-action table of an action family (nil: none).
	Actions *Actions
	// Shape adjusts the inferred schema for a schema a type cannot express
	// (an anyOf, say); actions are the instance's (nil without Actions).
	Shape func(s *jsonschema.Schema, actions []string)
	// Check applies defaults and the value rules with exact model-visible
	// messages after decoding (nil: none).
	Check func(*Decoded[T]) error
}

// Bound is an integer property's inclusive range; Max 0 means no maximum.
type Bound struct{ Min, Max int }

// NewParams returns T's contract for tool.
func NewParams[T any](tool string, opt ParamOptions[T]) *Params[T] {
	p := newParams(tool, opt)
	declared.Lock()
	declared.contracts = append(declared.contracts, declaredContract{key: p.key, derive: func() (map[string]any, error) {
		return p.derive(p.allActions())
	}})
	declared.Unlock()
	return p
}

// declared lists every contract made by NewParams (they are package
// variables, so one entry per tool parameter type), for the test that
// keeps the generated schemas current.
var declared struct {
	sync.Mutex
	contracts []declaredContract
}

type declaredContract struct {
	key    string
	derive func() (map[string]any, error)
}

// DeriveDeclaredSchemas derives every declared contract's full schema (all
// its actions) with jsonschema-go, by contract key, ignoring the generated
// table: what internal/tools/schemas_gen.go must hold. Two contracts with
// one key are an error.
func DeriveDeclaredSchemas() (map[string]map[string]any, error) {
	declared.Lock()
	defer declared.Unlock()
	out := map[string]map[string]any{}
	for _, c := range declared.contracts {
		if _, dup := out[c.key]; dup {
			return nil, fmt.Errorf("two parameter contracts have the key %q", c.key)
		}
		s, err := c.derive()
		if err != nil {
			return nil, err
		}
		out[c.key] = s
	}
	return out, nil
}

// GeneratedSchema is the generated table's full schema for a contract key
// (schemas_gen.go), a new value on every call; false when the table has
// none.
func GeneratedSchema(key string) (map[string]any, bool) { return generatedSchema(key) }

func newParams[T any](tool string, opt ParamOptions[T]) *Params[T] {
	return &Params[T]{tool: tool, opt: opt, key: contractKey(reflect.TypeFor[T]()), memo: map[string]schemaResult{},
		fields: sync.OnceValue(func() []paramField {
			var out []paramField
			for _, f := range reflect.VisibleFields(reflect.TypeFor[T]()) {
				if name := jsonName(f); name != "" {
					out = append(out, paramField{name: name, index: f.Index})
				}
			}
			return out
		})}
}

// contractKey names a parameter type within the module: its package path
// below internal/ and its name ("tools/file.input").
func contractKey(t reflect.Type) string {
	pkg := t.PkgPath()
	if i := strings.Index(pkg, "/internal/"); i >= 0 {
		pkg = pkg[i+len("/internal/"):]
	}
	return pkg + "." + t.Name()
}

// allActions is the contract's whole action list (nil without actions).
func (p *Params[T]) allActions() []string {
	if p.opt.Actions == nil {
		return nil
	}
	return p.opt.Actions.Names()
}

// Schema is the published input schema (every action of a family). It is
// built once and shared; callers must not modify it. It panics if T cannot
// be described, which a test of every tool's schema catches before release.
func (p *Params[T]) Schema() map[string]any { return p.SchemaFor(nil) }

// SchemaFor is the schema of an instance that runs only actions (nil: all):
// the action enum lists exactly those, and a property no listed action
// allows is left out (CONTRACT.md §4.5).
func (p *Params[T]) SchemaFor(actions []string) map[string]any {
	s, err := p.schemaFor(actions)
	if err != nil {
		panic(err)
	}
	return s
}

// schemaFor is SchemaFor with the error returned, once per action list:
// the full list's from the generated table (schemas_gen.go, derived from
// T at build time, so a process does not spend its start reflecting over
// every tool's type), any other list derived from T now.
func (p *Params[T]) schemaFor(actions []string) (map[string]any, error) {
	all := p.allActions()
	if actions == nil {
		actions = all
	}
	key := strings.Join(actions, ",")
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.memo[key]
	if !ok {
		if key == strings.Join(all, ",") {
			r.schema, ok = generatedSchema(p.key)
		}
		if !ok {
			r.schema, r.err = p.derive(actions)
		}
		p.memo[key] = r
	}
	return r.schema, r.err
}

// typeSchemas are the schemas of the field kinds the decoder reads where
// jsonschema-go's inference differs from what the registry publishes (a
// slice infers ["null","array"]; Count is a plain integer; Raw is shaped by
// the tool).
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]string](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	reflect.TypeFor[Count]():    {Type: "integer"},
	reflect.TypeFor[Raw]():      {},
}

// derive infers the schema from T with jsonschema-go and shapes it as the
// registry publishes schemas: a plain JSON object, with no
// additionalProperties unless Closed (unknown keys are otherwise the tool's
// to refuse or ignore).
func (p *Params[T]) derive(actions []string) (map[string]any, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		return nil, fmt.Errorf("%s parameters: %w", p.tool, err)
	}
	if !p.opt.Closed {
		s.AdditionalProperties = nil
	}
	if err := p.describe(s, actions); err != nil {
		return nil, err
	}
	if p.opt.Shape != nil {
		p.opt.Shape(s, actions)
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

// describe adds the docs and enums and narrows the properties to actions.
func (p *Params[T]) describe(s *jsonschema.Schema, actions []string) error {
	for prop, doc := range p.opt.Docs {
		ps, ok := s.Properties[prop]
		if !ok || ps.Description != "" {
			return fmt.Errorf("%s parameters: doc for unknown or tag-described property %q", p.tool, prop)
		}
		ps.Description = doc
	}
	for prop, b := range p.opt.Bounds {
		ps, ok := s.Properties[prop]
		if !ok {
			return fmt.Errorf("%s parameters: bound for unknown property %q", p.tool, prop)
		}
		lo := float64(b.Min)
		ps.Minimum = &lo
		if b.Max > 0 {
			hi := float64(b.Max)
			ps.Maximum = &hi
		}
	}
	enums := p.opt.Enums
	if a := p.opt.Actions; a != nil {
		enums = map[string][]string{a.Field: actions}
		for k, v := range p.opt.Enums {
			enums[k] = v
		}
		for prop := range s.Properties {
			if prop != a.Field && !a.allowedByAny(prop, actions) {
				delete(s.Properties, prop)
				s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == prop })
			}
		}
	}
	for prop, values := range enums {
		ps, ok := s.Properties[prop]
		if !ok {
			return fmt.Errorf("%s parameters: enum for unknown property %q", p.tool, prop)
		}
		ps.Enum = make([]any, len(values))
		for i, v := range values {
			ps.Enum[i] = v
		}
	}
	return nil
}

// Count is a non-negative integer parameter (a line number, a limit, a
// depth): a negative, fractional or non-number value is refused with the
// contract's "must be a non-negative integer" text. Its schema is a plain
// integer.
type Count int

// Raw is a parameter whose JSON shape depends on the action (File's
// `replace`: a string for edit, entries for patch). Decode keeps it as sent
// and the tool reads it; Shape publishes its schema.
type Raw json.RawMessage

// Actions is the per-action table (nil for a tool without actions), for
// the agreement tests.
func (p *Params[T]) Actions() *Actions { return p.opt.Actions }
