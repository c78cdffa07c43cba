package catalog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools"
)

// ToolSearchTool is the synthetic tool_search catalog entry (CONTRACT.md §4.3).
func ToolSearchTool() provider.Tool {
	t := provider.Tool{
		Type:        "tool_search_20251119",
		Name:        ToolSearchName,
		Description: "Search deferred tool definitions and return matching tool references.",
		InputSchema: map[string]any{
			"type":     "object",
			"required": []any{"query"},
			"properties": map[string]any{
				"query":       map[string]any{"type": "string", "description": "Search query for tool discovery."},
				"match":       map[string]any{"type": "string", "enum": []any{"bm25", "regex"}, "default": "bm25"},
				"max_results": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
			},
		},
		AllowedCallers: []string{"direct"},
		DeferLoading:   provider.Bool(false),
	}
	t.Freeze()
	return t
}

// SearchResult is the outcome of one tool_search call.
type SearchResult struct {
	References  []string         // hits, now active
	Unavailable []map[string]any // unavailable_tool_reference entries
	Loaded      []string         // hits that were deferred and not yet active
}

// reference is one tool_references or unavailable_tool_references item,
// its keys in the contract's order (a map would sort them).
type reference struct {
	Type     string `json:"type"`
	ToolName any    `json:"tool_name"`
	Reason   any    `json:"reason,omitempty"`
}

// Content is the compact JSON the model receives (CONTRACT.md §4.3).
func (r *SearchResult) Content() string {
	refs := make([]reference, 0, len(r.References))
	for _, n := range r.References {
		refs = append(refs, reference{Type: "tool_reference", ToolName: n})
	}
	un := make([]reference, 0, len(r.Unavailable))
	for _, u := range r.Unavailable {
		un = append(un, reference{Type: "unavailable_tool_reference", ToolName: u["tool_name"], Reason: u["reason"]})
	}
	b, _ := json.Marshal(struct {
		Type        string      `json:"type"`
		References  []reference `json:"tool_references"`
		Unavailable []reference `json:"unavailable_tool_references"`
	}{"tool_search_tool_search_result", refs, un})
	return string(b)
}

// Metadata is the receipt for the UI.
func (r *SearchResult) Metadata() map[string]any {
	refs := r.References
	if refs == nil {
		refs = []string{}
	}
	un := r.Unavailable
	if un == nil {
		un = []map[string]any{}
	}
	return map[string]any{"tool_references": refs, "unavailable_tool_references": un, "loaded": r.Loaded}
}

func (e *Entry) hay() string {
	if e.haystack == "" {
		schema, _ := json.Marshal(e.Tool.InputSchema)
		e.haystack = strings.ToLower(e.Tool.Name) + "\n" + strings.ToLower(e.Tool.Description) + "\n" + strings.ToLower(string(schema))
	}
	return e.haystack
}

// Search runs tool_search with the given arguments (callName forces the
// match mode for the legacy spellings) and activates every hit.
func (c *Catalog) Search(callName string, in json.RawMessage) (*SearchResult, error) {
	args, err := tools.ParseArgs(in)
	if err != nil {
		return nil, err
	}
	query, err := args.RequireString("query")
	if err != nil {
		return nil, err
	}
	match, _, err := args.String("match")
	if err != nil {
		return nil, err
	}
	switch callName {
	case "tool_search_tool_regex":
		match = "regex"
	case "tool_search_tool_bm25":
		match = "bm25"
	}
	if match == "" {
		match = "bm25"
	}
	limit, ok, err := args.Int("max_results")
	if err != nil {
		return nil, err
	}
	if !ok {
		limit = 20
	}
	limit = max(1, min(100, limit))
	var hits []string
	var matches func(string) bool
	switch match {
	case "bm25":
		hits = c.bm25(query, limit)
		terms := strings.Fields(strings.ToLower(query))
		matches = func(h string) bool {
			for _, t := range terms {
				if strings.Contains(h, t) {
					return true
				}
			}
			return false
		}
	case "regex":
		re, err := regexp.Compile(query)
		if err != nil {
			return nil, tools.InvalidInput("Invalid regex query: %v", err)
		}
		for i := range c.entries {
			e := &c.entries[i]
			if IsToolSearch(e.Tool.Name) || !re.MatchString(e.hay()) {
				continue
			}
			if hits = append(hits, e.Tool.Name); len(hits) == limit {
				break
			}
		}
		matches = re.MatchString
	default:
		return nil, tools.InvalidInput("Unsupported match algorithm '%s'. Expected one of: bm25, regex", match)
	}
	res := &SearchResult{}
	var wanted []string
	for _, h := range hits {
		if e, ok := c.Lookup(h); ok && e.Deferred() && !c.active[h] {
			wanted = append(wanted, h)
		}
	}
	res.Loaded = c.Activate(wanted...)
	for _, h := range hits {
		if c.active[h] {
			res.References = append(res.References, h)
			continue
		}
		res.Unavailable = append(res.Unavailable, map[string]any{"type": "unavailable_tool_reference", "tool_name": h,
			"reason": fmt.Sprintf("not loaded: this turn's request already carries the most tools it may (%d); finish with the loaded tools, or continue in a new turn", MaxActive)})
	}
	for _, u := range c.unavailableCore() {
		if len(res.References)+len(res.Unavailable) >= limit {
			break
		}
		if matches(u.hay) {
			res.Unavailable = append(res.Unavailable, map[string]any{"type": "unavailable_tool_reference", "tool_name": u.name, "reason": u.reason})
		}
	}
	return res, nil
}

// bm25 is the weighted term count of CONTRACT.md §4.3: +1 per query term found
// in the haystack, +2 more when it is in the name.
func (c *Catalog) bm25(query string, limit int) []string {
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil
	}
	type scored struct {
		name  string
		score int
	}
	var out []scored
	for i := range c.entries {
		e := &c.entries[i]
		if IsToolSearch(e.Tool.Name) {
			continue
		}
		h, name := e.hay(), strings.ToLower(e.Tool.Name)
		s := 0
		for _, t := range terms {
			if strings.Contains(h, t) {
				s++
			}
			if strings.Contains(name, t) {
				s += 2
			}
		}
		if s > 0 {
			out = append(out, scored{e.Tool.Name, s})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].name < out[j].name
	})
	names := make([]string, 0, min(limit, len(out)))
	for i := 0; i < len(out) && i < limit; i++ {
		names = append(names, out[i].name)
	}
	return names
}

type unavailable struct{ name, reason, hay string }

// unavailableCore explains why Bash or File is missing from this catalog.
func (c *Catalog) unavailableCore() []unavailable {
	var out []unavailable
	if _, ok := c.Lookup("Bash"); !ok {
		reason := "Bash is not registered this turn"
		switch {
		case c.opts.Mode == posture.Plan:
			reason = "Bash is unavailable in Plan mode; switch to Act mode (`/mode act`) to run commands"
		case MatchesAny(c.opts.Deny, "Bash"):
			reason = "Bash is in the disallowed-tools list"
		case c.notAllowed("Bash"):
			reason = "Bash is not in the allowed-tools list for the current command"
		case !c.opts.AllowShell && c.opts.Posture != posture.FullAccess:
			reason = "shell is disabled (allow_shell = false); `/config allow_shell true` restores it next turn"
		}
		out = append(out, unavailable{"Bash", reason, "bash\nrun shell commands in the workspace\ncommand"})
	}
	if _, ok := c.Lookup("File"); !ok {
		reason := "File is not registered this turn"
		switch {
		case MatchesAny(c.opts.Deny, "File"):
			reason = "File is in the disallowed-tools list"
		case c.notAllowed("File"):
			reason = "File is not in the allowed-tools list for the current command"
		}
		out = append(out, unavailable{"File", reason, "file\nread, list, search, write, edit and patch workspace files\npath"})
	}
	return out
}

// notAllowed reports whether an allowed-tools list keeps name out: the
// session's, or the user command's for this turn.
func (c *Catalog) notAllowed(name string) bool {
	return len(c.opts.Allow) > 0 && !MatchesAny(c.opts.Allow, name) ||
		c.opts.CommandAllow != nil && !MatchesAny(c.opts.CommandAllow, name)
}
