package tasks

func str(desc string) map[string]any {
	m := map[string]any{"type": "string"}
	if desc != "" {
		m["description"] = desc
	}
	return m
}

func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}

func enum(desc string, values ...string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"type": "string", "enum": vs, "description": desc}
}

func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		s["required"] = req
	}
	return s
}

func createProps() map[string]any {
	return map[string]any{
		"prompt":       str("What the durable task should do (create)."),
		"model":        str("Model for the task (create); defaults to the session's."),
		"workspace":    str("Workspace directory (create); defaults to the current workspace."),
		"mode":         enum("Mode the task runs in (create); default agent.", "agent", "plan", "operate"),
		"allow_shell":  boolean("Let the task use the shell (create)."),
		"trust_mode":   boolean("Lift the workspace boundary for the task (create)."),
		"auto_approve": boolean("Approve the task's tool calls without asking (create); default false."),
	}
}

func gateProps() map[string]any {
	return map[string]any{
		"gate":       enum("Gate category (gate_run).", "fmt", "check", "clippy", "test", "custom"),
		"command":    str("Command to run through /bin/sh (gate_run)."),
		"cwd":        str("Working directory inside the workspace (gate_run); default the workspace."),
		"timeout_ms": map[string]any{"type": "integer", "minimum": minGateTimeout, "maximum": maxGateTimeout, "description": "Timeout in ms (gate_run); default 120000."},
	}
}

func taskIDProp() map[string]any {
	return str("Full task id or unique prefix (read, cancel); defaults to the active durable task.")
}

func limitProp() map[string]any {
	return map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "How many tasks to list, newest first (list)."}
}

// canonicalSchema is the `tasks` schema for the actions this instance runs.
func canonicalSchema(actions []string, readOnly bool) map[string]any {
	props := map[string]any{"action": enum("Action to perform.", actions...), "task_id": taskIDProp(), "limit": limitProp()}
	if !readOnly {
		for k, v := range createProps() {
			props[k] = v
		}
		for k, v := range gateProps() {
			props[k] = v
		}
	}
	return object(props, "action")
}

// legacySchema is the per-action schema a replay alias keeps (no action).
func legacySchema(action string) map[string]any {
	switch action {
	case "create":
		return object(createProps(), "prompt")
	case "list":
		return object(map[string]any{"limit": limitProp()})
	default: // read
		return object(map[string]any{"task_id": taskIDProp()}, "task_id")
	}
}
