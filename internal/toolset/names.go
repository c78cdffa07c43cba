package toolset

import (
	"maps"
	"strings"
)

// known is every built-in tool name a registry may hold and whether Plan
// offers it (CONTRACT.md §3.2): the sub-agent definition loader checks a
// definition's tools against it before a child ever runs.
// TestKnownToolsAreTheRegistries holds it to the registries themselves.
var known = map[string]bool{
	"File": true, "Git": true, "Web": true, "agent": true, "handle_read": true, "load_skill": true,
	"update_plan": true, "work_update": true, "tasks": true, "automation": true, "github": true,
	"todo_write": true, "todo_add": true, "todo_update": true, "todo_list": true,
	"checklist_write": true, "checklist_add": true, "checklist_update": true, "checklist_list": true,
	"task_list": true, "task_read": true, "automation_list": true, "automation_read": true,
	"github_issue_context": true, "github_pr_context": true, "read_media": true, "lsp": true,
	"Bash": false, "Run": false, "apply_patch": false, "remember": false, "task_create": false,
	"automation_create": false, "automation_update": false, "automation_delete": false, "automation_pause": false,
	"automation_resume": false, "automation_run": false, "github_comment": false, "github_close_issue": false,
	"github_close_pr": false, "rlm": false, "rlm_open": false, "rlm_eval": false, "rlm_configure": false,
	"rlm_close": false, "rlm_session_objects": false,
}

// KnownTool says whether rule (a tool name, or a prefix ending in `*`) names
// a tool some registry may hold, and whether Plan offers it. An MCP tool
// (`mcp_<server>_<tool>`) is known by its shape: servers connect after the
// definitions load, so its presence is a matter of the turn.
func KnownTool(rule string) (ok, inPlan bool) {
	if strings.HasPrefix(rule, "mcp_") && len(rule) > len("mcp_") {
		return true, true
	}
	if p, wild := strings.CutSuffix(rule, "*"); wild {
		if p == "" {
			return false, false
		}
		for name, plan := range known {
			if strings.HasPrefix(name, p) {
				ok, inPlan = true, inPlan || plan
			}
		}
		return ok, inPlan
	}
	inPlan, ok = known[rule]
	return ok, inPlan
}

// KnownTools is a copy of the table: name → whether Plan offers it.
func KnownTools() map[string]bool { return maps.Clone(known) }
