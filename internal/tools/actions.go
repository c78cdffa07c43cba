package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Actions is an action family's per-action table (CONTRACT.md §2.4): which
// keys each action allows and requires, and the aliases folded onto them.
// The schema publishes the union of what an instance's actions allow; the
// decoder applies the same table, so the two cannot disagree. The texts of
// the refusals are the family's own (the contract fixes them per family).
type Actions struct {
	Field   string // the action key, normally "action"
	Default string // the action when none is sent ("": one is required)
	// KeepField keeps the action among the keys sent, so a missing field's
	// "Input provided: …" lists it (Git's wording); otherwise it is not.
	KeepField bool
	// Family gives the short action texts of the tasks, github, automation
	// and rlm families (Args.FamilyAction; CONTRACT.md §2.4) instead of
	// Args.Action's; such a family has no default action.
	Family  bool
	Rules   []Rule // in published order
	Aliases []Alias
	// NotObject replaces the generic text for an input that is not a JSON
	// object ("": the generic one).
	NotObject string
	// Unavailable refuses an action of the family the instance does not run
	// (Plan's File write); nil gives the unknown-action text.
	Unavailable func(action string, actions []string) error
	// Ambiguous refuses an alias sent beside its canonical key with a
	// different value (the same value is folded silently).
	Ambiguous func(action, field, alias string) error
	// Exclusive, when set, makes a field's spellings exclusive: sending more
	// than one of the canonical key and its aliases is refused, even with
	// equal values; present lists them, canonical first, in table order.
	// Nil: an alias equal to its canonical key is folded silently.
	Exclusive func(field string, present []string) error
	// Missing words an absent required field; sent are the keys as the
	// call sent them (before folding, the action included). Nil: the
	// contract's MissingField / "Input provided: …" texts over the folded
	// keys.
	Missing func(action, field string, sent []string) error
	// Unexpected words the refusal of keys the action does not allow (nil:
	// UnexpectedFields, the one rule every family shares; CONTRACT.md §2.4).
	// A key outside the action's table is never accepted and ignored.
	Unexpected func(action string, extra []string, r Rule) error
}

// Rule is one action's keys.
type Rule struct {
	Action  string
	Allowed []string
	// Required fields are checked in this order before any other field is
	// read; a OneOf rule's (exactly one of them) are the tool's to check.
	Required []string
	OneOf    bool
}

// Alias is a spelling folded onto a canonical key, for the listed actions
// (nil: every action). Scale > 0 makes it the same quantity in other units:
// a non-negative integer multiplied by Scale (Bash's timeout_secs).
type Alias struct {
	From, To string
	Actions  []string
	Scale    int
}

// Names are the family's actions in published order.
func (a *Actions) Names() []string {
	out := make([]string, len(a.Rules))
	for i, r := range a.Rules {
		out[i] = r.Action
	}
	return out
}

func (a *Actions) rule(action string) Rule {
	for _, r := range a.Rules {
		if r.Action == action {
			return r
		}
	}
	return Rule{}
}

func (a *Actions) allowedByAny(prop string, actions []string) bool {
	for _, name := range actions {
		if slices.Contains(a.rule(name).Allowed, prop) {
			return true
		}
	}
	return false
}

// apply selects the action among actions, removes the action key from args,
// folds the action's aliases and refuses keys it does not allow.
func (a *Actions) apply(tool string, args Args, actions []string) (string, error) {
	if s, ok, _ := args.String(a.Field); ok && a.Unavailable != nil &&
		!slices.Contains(actions, s) && slices.Contains(a.Names(), s) {
		return "", a.Unavailable(s, actions)
	}
	action, err := a.action(tool, args, actions)
	if err != nil {
		return "", err
	}
	if !a.KeepField {
		delete(args, a.Field)
	}
	if err := a.foldAll(args, action); err != nil {
		return "", err
	}
	r := a.rule(action)
	var extra []string
	for _, k := range args.Keys() {
		if k != a.Field && !slices.Contains(r.Allowed, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return action, nil
	}
	if a.Unexpected != nil {
		return "", a.Unexpected(action, extra, r)
	}
	return "", UnexpectedFields(tool, action, a.Field, extra, r.Allowed)
}

// UnexpectedFields is the refusal of fields an action does not take
// (CONTRACT.md §2.4, exact): `<Tool> <action> does not take `<k>`[, `<k2>`];
// nothing was run. Its fields are: <field>, <allowed…>.` A field is never
// accepted and ignored: the model learns at once what the action reads.
func UnexpectedFields(tool, action, field string, extra, allowed []string) *Error {
	quoted := make([]string, len(extra))
	for i, k := range extra {
		quoted[i] = "`" + k + "`"
	}
	fields := append([]string{field}, allowed...)
	e := InvalidInput("%s %s does not take %s; nothing was run. Its fields are: %s.", tool, action,
		strings.Join(quoted, ", "), strings.Join(fields, ", "))
	e.Field = extra[0]
	return e
}

func (a *Actions) action(tool string, args Args, actions []string) (string, error) {
	if a.Family {
		return args.FamilyAction(tool, actions)
	}
	return args.Action(tool, actions, a.Default)
}

// foldAll folds the action's aliases onto their canonical keys.
func (a *Actions) foldAll(args Args, action string) error {
	applies := func(al Alias) bool { return al.Actions == nil || slices.Contains(al.Actions, action) }
	var done []string
	for _, al := range a.Aliases {
		if !applies(al) {
			continue
		}
		if a.Exclusive == nil {
			if err := a.fold(args, action, al); err != nil {
				return err
			}
			continue
		}
		if slices.Contains(done, al.To) {
			continue
		}
		done = append(done, al.To)
		var present []string
		if args.Has(al.To) {
			present = append(present, al.To)
		}
		for _, o := range a.Aliases {
			if o.To == al.To && applies(o) && args.Has(o.From) {
				present = append(present, o.From)
			}
		}
		if len(present) > 1 {
			return a.Exclusive(al.To, present)
		}
		if len(present) == 1 && present[0] != al.To {
			if err := a.move(args, present[0], al.To); err != nil {
				return err
			}
		}
	}
	return nil
}

// move renames an exclusive alias, converting its units.
func (a *Actions) move(args Args, from, to string) error {
	for _, al := range a.Aliases {
		if al.From == from && al.To == to && al.Scale > 0 {
			n, _, err := args.Uint(from)
			if err != nil {
				return err
			}
			args[to] = json.RawMessage(strconv.Itoa(n * al.Scale))
			delete(args, from)
			return nil
		}
	}
	args[to] = args[from]
	delete(args, from)
	return nil
}

// fold moves an alias onto its canonical key; an alias that disagrees with
// the canonical key is refused rather than guessed.
func (a *Actions) fold(args Args, action string, al Alias) error {
	v, ok := args[al.From]
	if !ok {
		return nil
	}
	delete(args, al.From)
	cur, has := args[al.To]
	if !has {
		args[al.To] = v
		return nil
	}
	if sameJSON(cur, v) || a.Ambiguous == nil {
		return nil
	}
	return a.Ambiguous(action, al.To, al.From)
}

func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
