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
	Enabled  bool     `json:"enabled"`
	Problem  string   `json:"problem,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Validate checks the file at path without starting any server. The error
// is the file-level problem; per-server problems are in the checks.
func Validate(path string) ([]Check, error) {
	cfg, err := LoadConfig(path)
	if err != nil {
		return nil, err
	}
	var out []Check
	for _, name := range cfg.Names() {
		s := cfg.Servers[name]
		out = append(out, Check{Name: name, Enabled: s.IsEnabled(), Problem: s.Problem, Warnings: s.Warnings})
	}
	return out, nil
}

// WriteChecks renders Validate's result; it reports whether every entry is
// usable.
func WriteChecks(w io.Writer, path string, checks []Check) bool {
	fmt.Fprintf(w, "MCP config: %s\n", path)
	ok := true
	for _, c := range checks {
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
	if len(checks) == 0 {
		fmt.Fprintln(w, "  no servers configured")
	}
	return ok
}
