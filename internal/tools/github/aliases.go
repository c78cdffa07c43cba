package github

import (
	"slices"

	"github.com/codewhale/codewhale/internal/tools"
)

// aliasActions maps the replay-only spellings to their actions.
var aliasActions = []struct{ name, action string }{
	{"github_issue_context", "issue_context"},
	{"github_pr_context", "pr_context"},
	{"github_comment", "comment"},
	{"github_close_issue", "close_issue"},
	{"github_close_pr", "close_pr"},
}

// Aliases returns the replay aliases of t's actions (read ones only when t
// is read-only).
func Aliases(t *Tool) []tools.Tool {
	var out []tools.Tool
	for _, a := range aliasActions {
		if slices.Contains(t.actions, a.action) {
			out = append(out, tools.NewActionAlias(t, a.name, a.action))
		}
	}
	return out
}
