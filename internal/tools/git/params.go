package git

import "github.com/codewhale/codewhale/internal/tools"

// input is Git's parameter contract (docs/ARCHITECTURE.md §6): the published
// schema, the per-action table and the decoding come from this type and
// gitActions. Every action reads only its own keys; a key outside the
// action's row is refused with the action's fields (CONTRACT.md §2.4).
type input struct {
	Action    string      `json:"action" jsonschema:"What to read: status, diff, log, show or blame."`
	Path      string      `json:"path,omitempty" jsonschema:"Optional directory or file (inside the workspace) to scope the action to; blame requires a file."`
	Cached    bool        `json:"cached,omitempty" jsonschema:"diff: show staged changes (index against HEAD) instead of unstaged ones. Default false."`
	Unified   tools.Count `json:"unified,omitempty" jsonschema:"diff, show: context lines around each change. Default 3, at most 50."`
	MaxCount  int         `json:"max_count,omitempty" jsonschema:"log: number of commits. Default 20, clamped to 1..200."`
	Author    string      `json:"author,omitempty" jsonschema:"log: only commits whose author matches this pattern (git --author)."`
	Since     string      `json:"since,omitempty" jsonschema:"log: only commits more recent than this date (git --since, e.g. 2024-01-31 or '2 weeks ago')."`
	Until     string      `json:"until,omitempty" jsonschema:"log: only commits older than this date (git --until)."`
	Rev       string      `json:"rev,omitempty" jsonschema:"show: the revision to show (required). log: where the history starts (default HEAD), or a range A..B / A...B, as git log <rev>. diff: compare the worktree (or with cached, the index) against this revision, as git diff <rev>. blame: the revision to blame at (default HEAD)."`
	Patch     bool        `json:"patch,omitempty" jsonschema:"show: include the patch. Default true."`
	Stat      bool        `json:"stat,omitempty" jsonschema:"show: include the diffstat. Default true."`
	StartLine int         `json:"start_line,omitempty" jsonschema:"blame: first line to blame. Default 1."`
	MaxLines  int         `json:"max_lines,omitempty" jsonschema:"blame: number of lines to blame. Default 200, clamped to 1..2000."`
	Porcelain bool        `json:"porcelain,omitempty" jsonschema:"blame: machine-readable --line-porcelain output instead of the default format. Default false."`
}

// gitActions is the per-action table (CONTRACT.md §6.3), in the order the
// contract lists the actions. blame's `path` is required too, but only once
// it resolves (an empty path is missing), so the request checks it.
var gitActions = &tools.Actions{
	Field:     "action",
	KeepField: true,
	Rules: []tools.Rule{
		{Action: "status", Allowed: []string{"path"}},
		{Action: "diff", Allowed: []string{"path", "rev", "cached", "unified"}},
		{Action: "log", Allowed: []string{"path", "rev", "max_count", "author", "since", "until"}},
		{Action: "show", Allowed: []string{"path", "rev", "patch", "stat", "unified"}, Required: []string{"rev"}},
		{Action: "blame", Allowed: []string{"path", "rev", "start_line", "max_lines", "porcelain"}},
	},
}

var params = tools.NewParams[input](ToolName, tools.ParamOptions[input]{Actions: gitActions, Closed: true})
