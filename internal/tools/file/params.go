package file

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codewhale/codewhale/internal/tools"
)

// call is one File call after action selection and alias folding: args has
// canonical keys only and no `action`.
type call struct {
	action string
	args   tools.Args
}

// alias maps a synonym onto its canonical key.
type alias struct{ from, to string }

var pathAliases = []alias{{"file_path", "path"}, {"filePath", "path"}}

// actionAliases are the per-action synonyms (CONTRACT.md §6.2, aliases).
var actionAliases = sync.OnceValue(func() map[string][]alias {
	return map[string][]alias{
		"edit": {{"old_string", "search"}, {"old_str", "search"}, {"oldText", "search"}, {"old_text", "search"},
			{"new_string", "replace"}, {"new_str", "replace"}, {"newText", "replace"}, {"new_text", "replace"},
			{"replacement", "replace"}},
		"read": {{"offset", "start_line"}, {"line_offset", "start_line"},
			{"limit", "max_lines"}, {"n_lines", "max_lines"}, {"num_lines", "max_lines"}},
		"search_name":    {{"max_results", "limit"}},
		"search_content": {{"query", "pattern"}, {"limit", "max_results"}},
	}
})

// actionParams is the parameter contract of one action (CONTRACT.md §6.2, unknown keys,
// plus `depth` on list and `literal` on search_content from CONTRACT.md §15.16, and
// `offset` on search_content to page through matches in path order).
type actionParams struct {
	allowed  []string
	required []string
	choice   bool // exactly one of required
}

var paramTable = sync.OnceValue(func() map[string]actionParams {
	return map[string]actionParams{
		"read":           {allowed: []string{"path", "start_line", "max_lines", "pages"}, required: []string{"path"}},
		"write":          {allowed: []string{"path", "content"}, required: []string{"path", "content"}},
		"edit":           {allowed: []string{"path", "search", "replace"}, required: []string{"path", "search", "replace"}},
		"list":           {allowed: []string{"path", "depth"}},
		"search_name":    {allowed: []string{"query", "path", "limit", "extensions", "exclude"}, required: []string{"query"}},
		"search_content": {allowed: []string{"pattern", "path", "include", "exclude", "context_lines", "case_insensitive", "max_results", "literal", "offset"}, required: []string{"pattern"}},
		"patch": {allowed: []string{"path", "patch", "replace", "changes", "fuzz", "create_if_missing"},
			required: []string{"patch", "replace", "changes"}, choice: true},
	}
})

// parseCall selects the action, applies the mode/feature gate, folds aliases
// and rejects keys the action does not implement.
func (t *Tool) parseCall(in json.RawMessage) (call, error) {
	if !isObject(in) {
		return call{}, tools.InvalidInput("File tool input must be an object")
	}
	args, err := tools.ParseArgs(in)
	if err != nil {
		return call{}, tools.InvalidInput("File tool input must be an object")
	}
	if s, ok, _ := args.String("action"); ok {
		if err := t.actionGate(s); err != nil {
			return call{}, err
		}
	}
	action, err := args.Action(Name, t.actions, "")
	if err != nil {
		return call{}, err
	}
	delete(args, "action")
	if err := foldAliases(args, action); err != nil {
		return call{}, err
	}
	if err := rejectUnknown(args, action); err != nil {
		return call{}, err
	}
	return call{action: action, args: args}, nil
}

// foldAliases moves synonyms onto canonical keys; an alias that disagrees
// with its canonical key is refused rather than guessed.
func foldAliases(args tools.Args, action string) error {
	for _, a := range append(slices.Clone(pathAliases), actionAliases()[action]...) {
		v, ok := args[a.from]
		if !ok {
			continue
		}
		delete(args, a.from)
		cur, has := args[a.to]
		if !has {
			args[a.to] = v
			continue
		}
		if !sameJSON(cur, v) {
			return tools.InvalidInput("File %s received both `%s` and its alias `%s` with different values, so the "+
				"intended argument is ambiguous; nothing was changed. Pass only `%s`.", action, a.to, a.from, a.to)
		}
	}
	return nil
}

func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func rejectUnknown(args tools.Args, action string) error {
	p := paramTable()[action]
	var extra []string
	for _, k := range args.Keys() {
		if !slices.Contains(p.allowed, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	required := quotedList(p.required, "and")
	if p.choice {
		required = "one of " + quotedList(p.required, "or")
	}
	return &tools.Error{Kind: tools.KindInvalidInput, Field: extra[0], Msg: fmt.Sprintf(
		"unexpected File %s parameter(s): %s. Allowed parameters are %s. Required: %s. The %s was not performed.",
		action, strings.Join(extra, ", "), quotedList(p.allowed, "and"), required, action)}
}

// quotedList renders names as "`a`, `b`, and `c`" ("none" when empty).
func quotedList(names []string, conj string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	switch len(q) {
	case 0:
		return "none"
	case 1:
		return q[0]
	case 2:
		return q[0] + " " + conj + " " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", " + conj + " " + q[len(q)-1]
}

// request turns the call into the typed request of its action, checking
// presence, types and bounds.
func (c call) request() (any, error) {
	switch c.action {
	case "read":
		return parseRead(c.args)
	case "list":
		return parseList(c.args)
	case "search_name":
		return parseSearchName(c.args)
	case "search_content":
		return parseSearchContent(c.args)
	case "write":
		return parseWrite(c.args)
	case "edit":
		return parseEdit(c.args)
	case "patch":
		return parsePatch(c.args)
	}
	return nil, tools.InvalidInput("Unknown File action %q", c.action)
}

// optPath returns `path` or "." when absent.
func optPath(a tools.Args) (string, error) {
	p, ok, err := a.String("path")
	if err != nil || !ok {
		return ".", err
	}
	return p, nil
}

// uintOr returns a non-negative integer field or def when absent.
func uintOr(a tools.Args, field string, def int) (int, bool, error) {
	n, ok, err := a.Uint(field)
	if err != nil || !ok {
		return def, false, err
	}
	return n, true, nil
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }
