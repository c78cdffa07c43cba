package file

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codewhale/codewhale/internal/tools"
)

// input is File's parameter contract (docs/ARCHITECTURE.md §6): the
// published schema of every instance, the per-action rules and the decoding
// all come from this type, fileActions and docs. Descriptions with
// backquotes, which a struct tag cannot hold, are in docs.
type input struct {
	Action          string      `json:"action" jsonschema:"The operation to perform."`
	Path            string      `json:"path,omitempty"`
	StartLine       tools.Count `json:"start_line,omitempty" jsonschema:"read: first line to show, 1-based (default 1)."`
	MaxLines        tools.Count `json:"max_lines,omitempty" jsonschema:"read: number of lines to show (default and maximum 500)."`
	Pages           string      `json:"pages,omitempty"`
	Depth           tools.Count `json:"depth,omitempty" jsonschema:"list: directory levels to show (default 1, maximum 5)."`
	Query           string      `json:"query,omitempty" jsonschema:"search_name: file name or path fragment, matched fuzzily."`
	Limit           tools.Count `json:"limit,omitempty" jsonschema:"search_name: maximum results (default 20, 1-200)."`
	Extensions      []string    `json:"extensions,omitempty" jsonschema:"search_name: only files with these extensions (no dot, case-insensitive)."`
	Pattern         string      `json:"pattern,omitempty"`
	Literal         bool        `json:"literal,omitempty"`
	Include         []string    `json:"include,omitempty"`
	Exclude         []string    `json:"exclude,omitempty"`
	ContextLines    tools.Count `json:"context_lines,omitempty" jsonschema:"search_content: lines of context before and after each match (default 2, max 1000)."`
	CaseInsensitive bool        `json:"case_insensitive,omitempty" jsonschema:"search_content: match case-insensitively (default false)."`
	MaxResults      tools.Count `json:"max_results,omitempty"`
	Offset          tools.Count `json:"offset,omitempty"`
	Content         string      `json:"content,omitempty" jsonschema:"write: the file's complete new content."`
	Search          string      `json:"search,omitempty" jsonschema:"edit: exact text to find; must match exactly one location."`
	// Replace is edit's replacement text or patch's [{path, content}]
	// entries; Changes is the deprecated alias of the entries form. Their
	// shapes depend on the action, so parseEdit and parsePatch read them.
	Replace         tools.Raw   `json:"replace,omitempty"`
	Patch           string      `json:"patch,omitempty"`
	Changes         tools.Raw   `json:"changes,omitempty"`
	Fuzz            tools.Count `json:"fuzz,omitempty" jsonschema:"patch: lines a hunk may be moved from its stated position (default 3, max 50); past that a hunk moves only to its one exact match in the file."`
	CreateIfMissing bool        `json:"create_if_missing,omitempty" jsonschema:"patch: create the target file if it does not exist (default false)."`
}

// entry is one element of the patch form's `replace` (and `changes`) array.
type entry struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

var docs = map[string]string{
	"path": "File or directory, relative to the workspace or absolute inside it. Required for read, write and edit; " +
		"default `.` for list and the searches; for patch, the single file the hunks apply to.",
	"pages": "read, PDF only: page `N` or range `N-M`.",
	"pattern": "search_content: regular expression in RE2 syntax read as ripgrep reads it: \\w, \\d and \\s are " +
		"Unicode-aware, case_insensitive uses Unicode case folding, `$` matches before CRLF; \\b is an ASCII word " +
		"boundary, and bytes that are not UTF-8 read as U+FFFD. Or plain text with literal=true.",
	"literal": "search_content: treat `pattern` as plain text instead of a regex (default false).",
	"include": "search_content: only files matching these globs (e.g. `*.go`, `src/**/*.ts`); a glob with `/` is " +
		"relative to the workspace root, one without matches a name at any depth.",
	"exclude": "search_content and search_name: skip paths matching these globs (as for include). Replaces the " +
		"default excludes (directories named node_modules, target, dist, build, …; minified files), which never skip " +
		"a directory holding tracked files and are reported when they skip something; `exclude: []` searches everything.",
	"max_results": "search_content: maximum matches (default 100; fewer when the result budget is reached, which the " +
		"result says). On search_name, same as `limit`.",
	"offset": "search_content: skip this many matches in path order (default 0); a truncated result gives the " +
		"`next_offset` to continue from.",
	"patch": "patch: unified diff with `---`/`+++` headers and `@@ -a,b +c,d @@` hunks; `git diff` output applies " +
		"as is (renames, copies, modes, \"\\ No newline at end of file\"); binary and symlink changes are refused.",
}

// fileActions is the per-action table (CONTRACT.md §6.2, aliases and unknown keys, plus `depth`
// on list and `literal` on search_content from CONTRACT.md §15.16, and `offset`
// on search_content to page through matches in path order).
var fileActions = &tools.Actions{
	Field: "action",
	Rules: []tools.Rule{
		{Action: "read", Allowed: []string{"path", "start_line", "max_lines", "pages"}, Required: []string{"path"}},
		{Action: "list", Allowed: []string{"path", "depth"}},
		{Action: "search_name", Allowed: []string{"query", "path", "limit", "extensions", "exclude"},
			Required: []string{"query"}},
		{Action: "search_content", Allowed: []string{"pattern", "path", "include", "exclude", "context_lines",
			"case_insensitive", "max_results", "literal", "offset"}, Required: []string{"pattern"}},
		{Action: "write", Allowed: []string{"path", "content"}, Required: []string{"path", "content"}},
		{Action: "edit", Allowed: []string{"path", "search", "replace"}, Required: []string{"path", "search", "replace"}},
		{Action: "patch", Allowed: []string{"path", "patch", "replace", "changes", "fuzz", "create_if_missing"},
			Required: []string{"patch", "replace", "changes"}, OneOf: true},
	},
	Aliases: append([]tools.Alias{{From: "file_path", To: "path"}, {From: "filePath", To: "path"}},
		slices.Concat(
			aliasesOf([]string{"edit"}, "search", "old_string", "old_str", "oldText", "old_text"),
			aliasesOf([]string{"edit"}, "replace", "new_string", "new_str", "newText", "new_text", "replacement"),
			aliasesOf([]string{"read"}, "start_line", "offset", "line_offset"),
			aliasesOf([]string{"read"}, "max_lines", "limit", "n_lines", "num_lines"),
			aliasesOf([]string{"search_name"}, "limit", "max_results"),
			aliasesOf([]string{"search_content"}, "pattern", "query"),
			aliasesOf([]string{"search_content"}, "max_results", "limit"),
		)...),
	NotObject:   "File tool input must be an object",
	Unavailable: unavailable,
	Ambiguous: func(action, field, alias string) error {
		return tools.InvalidInput("File %s received both `%s` and its alias `%s` with different values, so the "+
			"intended argument is ambiguous; nothing was changed. Pass only `%s`.", action, field, alias, field)
	},
	Unexpected: unexpected,
}

func aliasesOf(actions []string, to string, from ...string) []tools.Alias {
	out := make([]tools.Alias, len(from))
	for i, f := range from {
		out[i] = tools.Alias{From: f, To: to, Actions: actions}
	}
	return out
}

var params = tools.NewParams[input](Name, tools.ParamOptions[input]{Docs: docs, Actions: fileActions, Shape: shape})

// shape publishes what the types cannot say: `replace` is edit's string,
// patch's entries, or either where both actions run; `changes` is entries.
func shape(s *jsonschema.Schema, actions []string) {
	text := &jsonschema.Schema{Type: "string", Description: "edit: text that replaces `search`."}
	if r, ok := s.Properties["replace"]; ok {
		*r = *text
		if slices.Contains(actions, "patch") {
			entries := entriesSchema("patch: full-file replacements, each {path, content}.")
			*r = jsonschema.Schema{AnyOf: []*jsonschema.Schema{text, entries}}
			if !slices.Contains(actions, "edit") {
				*r = *entries
			}
		}
	}
	if c, ok := s.Properties["changes"]; ok {
		*c = *entriesSchema("patch: deprecated alias of `replace`.")
	}
}

// entriesSchema is the [{path, content}] array, its items inferred from
// entry (open to other keys, as published before the type existed).
func entriesSchema(desc string) *jsonschema.Schema {
	items, err := jsonschema.For[entry](nil)
	if err != nil {
		panic(err) // entry is two strings; a test derives every schema
	}
	items.AdditionalProperties = nil
	return &jsonschema.Schema{Type: "array", Description: desc, Items: items}
}

// unavailable refuses an action of the family this instance does not run,
// with the contract's exact texts (CONTRACT.md §4.6, §6.2).
func unavailable(action string, actions []string) error {
	avail := strings.Join(actions, ", ")
	if action == "patch" && slices.Contains(actions, "write") {
		return tools.NotAvailable("File action=\"patch\" is unavailable because the patch feature is disabled; "+
			"nothing was written. Available actions here: %s. When writes are available in this mode, "+
			"action=\"edit\" replaces a single exact match and action=\"write\" replaces the whole file.", avail)
	}
	return tools.NotAvailable("File action=\"%s\" is unavailable in the current mode; nothing was written. "+
		"Available actions here: %s. Switch to Act mode (`/mode act`) for write-capable file work.", action, avail)
}

func unexpected(action string, extra []string, r tools.Rule) error {
	required := quotedList(r.Required, "and")
	if r.OneOf {
		required = "one of " + quotedList(r.Required, "or")
	}
	return &tools.Error{Kind: tools.KindInvalidInput, Field: extra[0], Msg: fmt.Sprintf(
		"unexpected File %s parameter(s): %s. Allowed parameters are %s. Required: %s. The %s was not performed.",
		action, strings.Join(extra, ", "), quotedList(r.Allowed, "and"), required, action)}
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

// request turns a decoded call into the typed request of its action,
// checking the value rules and bounds.
func request(d *tools.Decoded[input]) (any, error) {
	switch d.Action {
	case "read":
		return parseRead(d)
	case "list":
		return parseList(d)
	case "search_name":
		return parseSearchName(d)
	case "search_content":
		return parseSearchContent(d)
	case "write":
		return writeReq{path: d.In.Path, content: d.In.Content}, nil
	case "edit":
		return parseEdit(d)
	case "patch":
		return parsePatch(d)
	}
	return nil, tools.InvalidInput("Unknown File action %q", d.Action)
}

// optPath returns `path` or "." when absent.
func optPath(d *tools.Decoded[input]) string {
	if !d.Has("path") {
		return "."
	}
	return d.In.Path
}

// countOr returns a count field or def when absent, and whether it was sent.
func countOr(d *tools.Decoded[input], field string, n tools.Count, def int) (int, bool) {
	if !d.Has(field) {
		return def, false
	}
	return int(n), true
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }
