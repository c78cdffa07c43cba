package rlm

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools"
)

// contract is rlm's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema, the per-action table and the decoding come from this
// type and rlmActions. The schema is closed and flat: every action may carry
// every published key (a key an action does not read is type-checked and
// ignored), as before the type existed.
type contract struct {
	Action              string `json:"action" jsonschema:"Operation."`
	Name                string `json:"name,omitempty" jsonschema:"Session name (default \"default\")."`
	FilePath            string `json:"file_path,omitempty" jsonschema:"open: a workspace file."`
	Content             string `json:"content,omitempty" jsonschema:"open: the text itself (at most 200000 characters)."`
	URL                 string `json:"url,omitempty" jsonschema:"open: an http(s) URL, fetched through the Web tool's policy."`
	SessionObject       string `json:"session_object,omitempty" jsonschema:"open: \"transcript\" or a handle's session_id (see session_objects)."`
	Code                string `json:"code,omitempty"`
	TimeoutMS           int    `json:"timeout_ms,omitempty" jsonschema:"eval: time limit, default 60000, max 600000."`
	OutputFeedback      string `json:"output_feedback,omitempty" jsonschema:"configure: full (output inline when short) or metadata (always handles)."`
	SubQueryTimeoutSecs int    `json:"sub_query_timeout_secs,omitempty" jsonschema:"configure: each child query's time limit (default 120)."`
	SubRLMMaxDepth      int    `json:"sub_rlm_max_depth,omitempty" jsonschema:"configure: how deep sub_rlm may nest (default 2)."`
	ShareSession        bool   `json:"share_session,omitempty" jsonschema:"configure: let sub-agents use this named session."`
}

var (
	// sources are open's, exactly one of which it takes, in the order the
	// refusal names them.
	sources   = []string{"file_path", "content", "url", "session_object"}
	feedbacks = []string{"full", "metadata"}
	// misplaced are open's fields models guess; the hint names the real ones.
	misplaced = []string{"prompt", "text", "body", "path", "file", "source", "resident_file"}
)

// rlmActions is the per-action table (CONTRACT.md §6.11) with the family's
// short action texts; a missing code keeps the wording "Input provided:
// action, …" (KeepField). open's sources are OneOf: checkOpen refuses none
// or several with the family's text.
var rlmActions = &tools.Actions{
	Field:     "action",
	Family:    true,
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "session_objects", Allowed: []string{"name"}},
		{Action: "open", Allowed: append([]string{"name"}, sources...), Required: sources, OneOf: true},
		{Action: "eval", Allowed: []string{"name", "code", "timeout_ms"}, Required: []string{"code"}},
		{Action: "configure", Allowed: []string{"name", "output_feedback", "sub_query_timeout_secs", "sub_rlm_max_depth", "share_session"}},
		{Action: "close", Allowed: []string{"name"}},
	},
}

var params = tools.NewParams[contract](ToolName, tools.ParamOptions[contract]{Actions: rlmActions, Closed: true,
	Enums:  map[string][]string{"output_feedback": feedbacks},
	Docs:   map[string]string{"code": "eval: Python to run; `content` holds the opened text."},
	Bounds: map[string]tools.Bound{"timeout_ms": {Min: 1}, "sub_query_timeout_secs": {Min: 1, Max: 3600}, "sub_rlm_max_depth": {Min: 0, Max: 3}},
	Check:  checkOpen})

// decodeInput is the one parse of a call. An open carrying a guessed source
// field gets the hint before the closed schema's unknown-key text; an
// unknown output_feedback gets the schema validator's text, the text such a
// call got before the type existed.
func decodeInput(raw json.RawMessage) (*tools.Decoded[contract], error) {
	args, err := params.ParseArgs(raw)
	if err != nil {
		return nil, err
	}
	action, err := args.FamilyAction(ToolName, Actions)
	if err != nil {
		return nil, err
	}
	if action == "open" {
		for _, k := range misplaced {
			if args.Has(k) {
				return nil, tools.InvalidInput("rlm: open takes its source as one of file_path, content, url or "+
					"session_object; `%s` is not one of them", k)
			}
		}
	}
	d, err := params.DecodeArgs(args, nil)
	if err != nil {
		return nil, err
	}
	if d.Has("output_feedback") && !slices.Contains(feedbacks, d.In.OutputFeedback) {
		if err := tools.Validate(ToolName, params.Schema(), d.Input()); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// checkOpen: an open names exactly one source, and inline content fits.
func checkOpen(d *tools.Decoded[contract]) error {
	if d.Action != "open" {
		return nil
	}
	var given []string
	for _, k := range sources {
		if d.Has(k) {
			given = append(given, k)
		}
	}
	if len(given) != 1 {
		return tools.InvalidInput("rlm: open takes exactly one of file_path, content, url or session_object (got: %s)",
			orNone(given))
	}
	if n := utf8.RuneCountInString(d.In.Content); n > maxContentChars {
		return tools.InvalidInput("rlm: content is %d characters; at most %d may be passed inline — save it to a file and use file_path", n, maxContentChars)
	}
	return nil
}
