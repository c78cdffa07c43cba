package mcp

import (
	"fmt"
	"io"
	"strings"
)

// WriteStatuses renders server states for `codewhale mcp list` and
// `/mcp`: one line per server, then its error, warnings and stderr tail.
func WriteStatuses(w io.Writer, path string, cfgErr error, sts []Status) {
	fmt.Fprintf(w, "MCP config: %s\n", path)
	if cfgErr != nil {
		fmt.Fprintf(w, "error: %v\n", cfgErr)
		return
	}
	if len(sts) == 0 {
		fmt.Fprintln(w, "No MCP servers configured. Add one with `codewhale mcp add <name> -- <command> [args...]`"+
			" or `codewhale mcp add <name> --url <url>`.")
		return
	}
	width := 0
	for _, st := range sts {
		width = max(width, len(st.Name))
	}
	for _, st := range sts {
		fmt.Fprintf(w, "%-*s  %-12s  %-5s  %-9s  %s\n", width, st.Name, st.State, st.Transport, toolCount(st), st.Target)
		if st.Required {
			fmt.Fprintln(w, "    required: yes")
		}
		if st.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", st.Error)
		}
		for _, warn := range st.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", warn)
		}
		if st.StderrTail != "" && st.State != StateConnected {
			fmt.Fprintln(w, "    stderr (last lines):")
			for _, line := range strings.Split(lastLines(st.StderrTail, 10), "\n") {
				fmt.Fprintf(w, "      | %s\n", line)
			}
		}
	}
}

func toolCount(st Status) string {
	switch {
	case st.State != StateConnected:
		return "-"
	case len(st.Tools) == 1:
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", len(st.Tools))
}

// WriteTools renders one connected server's tools for `codewhale mcp tools`.
func WriteTools(w io.Writer, st Status) {
	fmt.Fprintf(w, "%s: %d tool(s)\n", st.Name, len(st.Tools))
	for _, t := range st.Tools {
		desc := strings.TrimSpace(t.Description)
		if i := strings.IndexByte(desc, '\n'); i >= 0 {
			desc = desc[:i]
		}
		if len(desc) > 100 {
			desc = desc[:97] + "..."
		}
		fmt.Fprintf(w, "  %s  (%s)\n", t.ModelName, t.Name)
		if desc != "" {
			fmt.Fprintf(w, "      %s\n", desc)
		}
	}
}

// Check is the result of validating one server entry without starting it.
type Check struct {
	Name     string   `json:"name"`
	Source   string   `json:"source,omitempty"` // the file that defines it
	Enabled  bool     `json:"enabled"`
	Problem  string   `json:"problem,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Validation is what Validate found: the servers of the person's mcp.json
// and of the project's .mcp.json, and the project file itself.
type Validation struct {
	Path    string
	Checks  []Check
	Project *ProjectFile // nil when no project file is read
}

// Validate checks the file at path, and the project's .mcp.json when pr
// names a workspace, without starting any server. The error is the
// person's file's problem; per-server problems (an unset ${VAR}, a file
// not trusted) are in the checks.
func Validate(path string, pr Project) (*Validation, error) {
	cfg, err := LoadAll(path, pr)
	if err != nil {
		return nil, err
	}
	v := &Validation{Path: path, Project: cfg.Project}
	for _, name := range cfg.Names() {
		s := cfg.Servers[name]
		v.Checks = append(v.Checks, Check{Name: name, Source: s.Source, Enabled: s.IsEnabled(), Problem: s.Problem,
			Warnings: s.Warnings})
	}
	return v, nil
}

// WriteChecks renders Validate's result; it reports whether every entry is
// usable and the project file, when there is one, could be read.
func WriteChecks(w io.Writer, v *Validation) bool {
	fmt.Fprintf(w, "MCP config: %s\n", v.Path)
	ok := true
	if f := v.Project; f != nil && f.Exists {
		state := "trusted"
		switch {
		case f.Problem != "":
			state, ok = "error: "+f.Problem, false
		case f.Changed:
			state = "changed since you trusted it (its servers do not start)"
		case !f.Trusted:
			state = "not trusted (its servers do not start)"
		}
		fmt.Fprintf(w, "Project MCP config: %s: %s\n", f.Path, state)
	}
	for _, c := range v.Checks {
		state := "ok"
		switch {
		case c.Problem != "":
			state, ok = "error: "+c.Problem, false
		case !c.Enabled:
			state = "ok (disabled)"
		}
		fmt.Fprintf(w, "  %s: %s\n", c.Name, state)
		for _, warn := range c.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", warn)
		}
	}
	if len(v.Checks) == 0 {
		fmt.Fprintln(w, "  no servers configured")
	}
	return ok
}
