package mcp

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// Lookup reads one environment variable (os.LookupEnv's shape).
type Lookup func(string) (string, bool)

// expandVars replaces ${VAR} and ${VAR:-default} in s, as Claude Code's
// .mcp.json does. A variable that is unset or empty takes its default; one
// without a default is reported in unset and expands to "". Anything else
// after a '$' (a bare $VAR, ${} or a name with other characters) is kept as
// written: MCP configs carry literal dollars in arguments and URLs.
func expandVars(s string, lookup Lookup, unset map[string]bool) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		inner := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(inner, ":-")
		if !validVarName(name) {
			b.WriteString(s[:i+j+1])
			s = s[i+j+1:]
			continue
		}
		b.WriteString(s[:i])
		switch v, ok := lookup(name); {
		case ok && v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			unset[name] = true
		}
		s = s[i+j+1:]
	}
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// expandServer expands the variables of the fields that may hold them —
// command, args, env values, url, header values and the OAuth client —
// in place, and
// returns the names of the variables that were needed and unset, sorted.
func expandServer(s *ServerConfig, lookup Lookup) []string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	unset := map[string]bool{}
	s.Command = expandVars(s.Command, lookup, unset)
	s.URL = expandVars(s.URL, lookup, unset)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = expandVars(a, lookup, unset)
		}
		s.Args = args
	}
	s.Env = expandMap(s.Env, lookup, unset)
	s.Headers = expandMap(s.Headers, lookup, unset)
	s.OAuth.ClientID = expandVars(s.OAuth.ClientID, lookup, unset)
	s.OAuth.ClientSecret = expandVars(s.OAuth.ClientSecret, lookup, unset)
	out := make([]string, 0, len(unset))
	for name := range unset {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func expandMap(m map[string]string, lookup Lookup, unset map[string]bool) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expandVars(v, lookup, unset)
	}
	return out
}

// unsetProblem is the Problem of an entry that needs unset variables.
func unsetProblem(names []string) string {
	if len(names) == 1 {
		return fmt.Sprintf("environment variable %s is not set (referenced as ${%s}); set it, or write ${%s:-default}",
			names[0], names[0], names[0])
	}
	return fmt.Sprintf("environment variables %s are not set; set them, or give each a default as ${NAME:-default}",
		strings.Join(names, ", "))
}
