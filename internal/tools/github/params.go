package github

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is github's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type and ghActions. The schema is flat: every action may carry every
// published key (a key an action does not read is type-checked and
// ignored), as it was before the type existed.
type contract struct {
	Action             string    `json:"action" jsonschema:"Operation."`
	Number             int       `json:"number,omitempty" jsonschema:"Issue or pull request number."`
	Repo               string    `json:"repo,omitempty" jsonschema:"owner/name (or host/owner/name); default: the workspace's GitHub remote."`
	URL                string    `json:"url,omitempty" jsonschema:"An issue or pull request URL, instead of number and repo."`
	Body               string    `json:"body,omitempty" jsonschema:"comment: the Markdown to post."`
	FilesChanged       []string  `json:"files_changed,omitempty" jsonschema:"close: the files the fix changed."`
	TestsRun           []string  `json:"tests_run,omitempty" jsonschema:"close: the tests or checks run, with their outcome."`
	FinalStatus        string    `json:"final_status,omitempty" jsonschema:"close: one line on the final state (e.g. fixed in abc123, tests pass)."`
	AcceptanceCriteria tools.Raw `json:"acceptance_criteria,omitempty" jsonschema:"close: each criterion and whether it is met."`
	Reason             string    `json:"reason,omitempty" jsonschema:"close_issue: completed (default) or wont_do (GitHub's state_reason for work that will not be done)."`
	DryRun             bool      `json:"dry_run,omitempty" jsonschema:"close: report what would be posted and done, change nothing."`
}

var (
	refKeys   = []string{"number", "repo", "url"}
	closeKeys = []string{"number", "repo", "url", "files_changed", "tests_run", "final_status", "acceptance_criteria", "reason", "dry_run"}
	reasons   = []string{"completed", "wont_do"}
)

// ghActions is the per-action table (CONTRACT.md §6.12) with the family's
// short action texts. No key is required by the table: the reference
// ({number, repo} or url) is checked before an action's own keys, with the
// family's texts, as it always was; a missing body keeps the wording
// "Input provided: action, …" (KeepField).
var ghActions = &tools.Actions{
	Field:     "action",
	Family:    true,
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "issue_context", Allowed: refKeys},
		{Action: "pr_context", Allowed: refKeys},
		{Action: "comment", Allowed: append([]string{"body"}, refKeys...)},
		{Action: "close_issue", Allowed: closeKeys},
		{Action: "close_pr", Allowed: closeKeys},
	},
}

var params = tools.NewParams[contract](ToolName, tools.ParamOptions[contract]{Actions: ghActions, Closed: true, Shape: shape})

// shape publishes what a Go type cannot say: number's minimum, reason's
// enum and the criteria's items, for the properties the instance has.
func shape(s *jsonschema.Schema, _ []string) {
	if n, ok := s.Properties["number"]; ok {
		n.Minimum = jsonschema.Ptr(1.0)
	}
	if r, ok := s.Properties["reason"]; ok {
		for _, v := range reasons {
			r.Enum = append(r.Enum, v)
		}
	}
	if c, ok := s.Properties["acceptance_criteria"]; ok {
		str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
		c.Type, c.Items = "array", &jsonschema.Schema{Type: "object", Required: []string{"criterion", "met"},
			Properties: map[string]*jsonschema.Schema{"criterion": str("The criterion."),
				"met": {Type: "boolean"}, "evidence": str("How it was checked.")}}
	}
}

// decode is the one parse of a call. What the decoder's kinds let through
// but the instance's schema does not (number below 1, an unknown reason,
// malformed acceptance criteria, a write key sent to a Plan instance) is
// refused with the schema validator's text, the text such a call got
// before the type existed.
func decode(raw json.RawMessage, actions []string, schema map[string]any) (*tools.Decoded[contract], error) {
	d, err := params.DecodeFor(raw, actions)
	if err != nil {
		return nil, err
	}
	props, _ := schema["properties"].(map[string]any)
	bad := (d.Has("number") && d.In.Number < 1) || d.Has("acceptance_criteria") ||
		(d.Has("reason") && d.In.Reason != reasons[0] && d.In.Reason != reasons[1])
	for _, k := range closeKeys {
		if _, ok := props[k]; !ok && d.Has(k) {
			bad = true
		}
	}
	if _, ok := props["body"]; !ok && d.Has("body") {
		bad = true
	}
	if bad {
		if err := tools.Validate(ToolName, schema, d.Input()); err != nil {
			return nil, err
		}
	}
	return d, nil
}
