package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// Decoded is one decoded input: the typed value, the action (action
// families) and which keys were sent, under their canonical names.
type Decoded[T any] struct {
	In     T
	Action string
	args   Args // canonical keys; without the action field in an action family
	field  string
}

// Has reports whether the input carried field (JSON null counts as absent;
// an alias counts as its canonical field).
func (d *Decoded[T]) Has(field string) bool { return d.args.Has(field) }

// Missing is the contract's error for an absent required field (CONTRACT.md
// §2.3): MissingField from an otherwise empty input, InvalidInput naming
// what was sent otherwise (an action family's action not counted).
func (d *Decoded[T]) Missing(field string) error { return d.args.Missing(field) }

// Raw is field as sent (nil when absent), for a Raw field's tool-side read.
func (d *Decoded[T]) Raw(field string) json.RawMessage { return d.args[field] }

// RawString reads a Raw field as a string, strictly (the contract's type
// error otherwise): for an action whose shape of the field is a string.
func (d *Decoded[T]) RawString(field string) (string, error) {
	s, _, err := d.args.String(field)
	return s, err
}

// Input is the canonical input: aliases folded, nulls dropped, keys sorted,
// the action set. It is what the schema describes, what permission rules,
// hooks and the journal see, and what a replay would send.
func (d *Decoded[T]) Input() json.RawMessage {
	if d.field == "" || d.args.Has(d.field) {
		return d.args.Marshal()
	}
	out := make(Args, len(d.args)+1)
	for k, v := range d.args {
		out[k] = v
	}
	out[d.field], _ = json.Marshal(d.Action)
	return out.Marshal()
}

// Decode is DecodeFor every action (a tool without actions has none).
func (p *Params[T]) Decode(raw json.RawMessage) (*Decoded[T], error) { return p.DecodeFor(raw, nil) }

// DecodeFor parses raw once: a JSON object (null fields absent); for an action
// family, the action among actions (nil: all of the table), its aliases
// folded, its unknown keys refused and its required fields checked; then
// each known field read strictly by its Go type (a wrong type is refused,
// never coerced), required fields first; then Check. Every failure is a
// *Error with the contract's text.
func (p *Params[T]) DecodeFor(raw json.RawMessage, actions []string) (*Decoded[T], error) {
	args, err := p.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	return p.DecodeArgs(args, actions)
}

// ParseArgs is the one parse of a call's input: a JSON object, nulls
// dropped, refused with the family's text (Actions.NotObject) otherwise.
func (p *Params[T]) ParseArgs(raw json.RawMessage) (Args, error) {
	args, err := ParseArgs(raw)
	if err != nil && p.opt.Actions != nil && p.opt.Actions.NotObject != "" {
		return nil, InvalidInput("%s", p.opt.Actions.NotObject)
	}
	return args, err
}

// DecodeArgs is DecodeFor on input already parsed (a replay alias that sets
// the action first). It takes ownership of args.
func (p *Params[T]) DecodeArgs(args Args, actions []string) (*Decoded[T], error) {
	var err error
	d := &Decoded[T]{args: args}
	var required []string
	var missing func(field string) error
	if a := p.opt.Actions; a != nil && a.Missing != nil {
		sent := args.Keys()
		missing = func(field string) error { return a.Missing(d.Action, field, sent) }
	}
	if a := p.opt.Actions; a != nil {
		if actions == nil {
			actions = a.Names()
		}
		if d.Action, err = a.apply(p.tool, args, actions); err != nil {
			return nil, err
		}
		d.field = a.Field
		if r := a.rule(d.Action); !r.OneOf {
			required = r.Required
		}
	}
	if err := p.readFields(d, required, missing); err != nil {
		return nil, err
	}
	if err := p.checkBounds(d); err != nil {
		return nil, err
	}
	if p.opt.Check != nil {
		if err := p.opt.Check(d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// readFields decodes the sent fields into d.In: required ones first, in the
// rule's order (absent: missing, or the contract's Missing), so the first fault reported is the one
// the contract names first; then the rest in T's field order.
func (p *Params[T]) readFields(d *Decoded[T], required []string, missing func(string) error) error {
	v := reflect.ValueOf(&d.In).Elem()
	fields := p.fields()
	for _, name := range required {
		if !d.args.Has(name) && missing != nil {
			return missing(name)
		}
		if !d.args.Has(name) {
			return d.args.Missing(name)
		}
		for _, f := range fields {
			if f.name == name {
				if err := setField(v.FieldByIndex(f.index), d.args, name); err != nil {
					return err
				}
			}
		}
	}
	known := 0
	for _, f := range fields {
		if !d.args.Has(f.name) {
			continue
		}
		known++
		if slices.Contains(required, f.name) {
			continue
		}
		if err := setField(v.FieldByIndex(f.index), d.args, f.name); err != nil {
			return err
		}
	}
	if p.opt.Closed && known < len(d.args) {
		return p.unknownKey(d)
	}
	return nil
}

// checkBounds refuses an integer outside its Bound in the schema
// validator's words, naming only that property (the rest of the input may
// still be spelled the way the tool folds, a status "done" say).
func (p *Params[T]) checkBounds(d *Decoded[T]) error {
	for prop, b := range p.opt.Bounds {
		n, ok, err := d.args.Int(prop)
		if err != nil {
			return err
		}
		if ok && (n < b.Min || b.Max > 0 && n > b.Max) {
			props, _ := p.SchemaFor(nil)["properties"].(map[string]any)
			one := map[string]any{"type": "object", "properties": map[string]any{prop: props[prop]}}
			return Validate(p.tool, one, Args{prop: d.args[prop]}.Marshal())
		}
	}
	return nil
}

// unknownKey refuses a key a Closed contract does not name, in the schema
// validator's words (the text calls refused before the type existed got).
func (p *Params[T]) unknownKey(d *Decoded[T]) error {
	if err := Validate(p.tool, p.SchemaFor(nil), d.Input()); err != nil {
		return err
	}
	for _, k := range d.args.Keys() {
		if !slices.ContainsFunc(p.fields(), func(f paramField) bool { return f.name == k }) {
			return InvalidInput("unexpected parameter `%s`", k)
		}
	}
	return nil
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

var (
	countType = reflect.TypeFor[Count]()
	rawType   = reflect.TypeFor[Raw]()
)

// setField reads args[name] with the strict helper for dst's kind.
func setField(dst reflect.Value, args Args, name string) error {
	switch {
	case dst.Type() == countType:
		n, _, err := args.Uint(name)
		dst.SetInt(int64(n))
		return err
	case dst.Type() == rawType:
		dst.SetBytes(args[name])
		return nil
	}
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
	case reflect.Uint:
		n, _, err := args.Uint(name)
		dst.SetUint(uint64(n))
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
