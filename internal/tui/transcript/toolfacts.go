package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
)

// num reads a number from result metadata, which holds ints live and
// float64s once it has been through the session file.
func num(meta map[string]any, k string) (int64, bool) {
	switch v := meta[k].(type) {
	case int:
		return int64(v), true
	case int64:
		return v, true
	case float64:
		return int64(v), true
	}
	return 0, false
}

// resultCount is how many results a File list or search found, read from
// its JSON result ("" when the result is not one).
func resultCount(action, content string) string {
	var v any
	if json.Unmarshal([]byte(content), &v) != nil {
		return ""
	}
	noun := map[string]string{"list": "entries", "search_name": "files", "search_content": "matches"}[action]
	if noun == "" {
		return ""
	}
	switch v := v.(type) {
	case []any:
		return fmt.Sprintf("%d %s", len(v), noun)
	case map[string]any:
		m := map[string]any(v)
		if n, ok := num(m, "total_matches"); ok {
			s := fmt.Sprintf("%d %s", n, noun)
			if f, ok := num(m, "files_searched"); ok {
				s += fmt.Sprintf(" in %d files searched", f)
			}
			return s
		}
		if n, ok := num(m, "total_entries"); ok {
			listed, _ := num(m, "listed_entries")
			return fmt.Sprintf("%d of %d %s", listed, n, noun)
		}
	}
	return ""
}

// failureLine is the one-line reason a call failed: the first line of the
// error that is not blank, without the model-facing "Error: " prefix.
// Plan has no shell, and says so rather than "not registered".
func failureLine(name, content string) (line string, more bool) {
	content = strings.TrimSpace(content)
	if (name == "Bash" || name == "Run") && strings.Contains(content, "not registered") {
		return name + " is not available in Plan mode: Plan is read-only and has no shell (Tab switches to Act)",
			strings.Contains(content, "\n")
	}
	first, rest, _ := strings.Cut(content, "\n")
	first = strings.TrimPrefix(strings.TrimSpace(first), "Error: ")
	return first, strings.TrimSpace(rest) != ""
}

// droppedNote says how much of a command's output the stored result left
// out, so a short preview never passes for the whole output.
func droppedNote(meta map[string]any) string {
	var omitted int64
	for _, k := range []string{"stdout_omitted", "stderr_omitted"} {
		if n, ok := num(meta, k); ok {
			omitted += n
		}
	}
	if omitted <= 0 {
		return ""
	}
	return formatBytes(omitted) + " of output was cut from the middle (the model saw the head and tail)"
}

func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.2f MB", float64(n)/(1<<20))
}

// dropEmptySections removes `STDOUT:` / `STDERR:` headers with nothing
// under them from a command's result text.
func dropEmptySections(content string) string {
	lines := strings.Split(content, "\n")
	out := lines[:0:0]
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "STDOUT:" || l == "STDERR:" {
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
				j++
			}
			if j == len(lines) || lines[j] == "STDOUT:" || lines[j] == "STDERR:" {
				i = j - 1
				continue
			}
		}
		out = append(out, l)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// changedLines keeps what a reader of a diff preview wants first: hunk
// headers and the added and removed lines, without file headers and
// unchanged context.
func changedLines(rows []string) []string {
	out := rows[:0:0]
	for _, l := range rows {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "index "):
		case strings.HasPrefix(l, "diff "):
			out = append(out, l)
		case strings.HasPrefix(l, "@@"), strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"):
			out = append(out, l)
		}
	}
	return out
}
