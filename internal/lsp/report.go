package lsp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// Diagnostic is one problem as codewhale shows it: Path as shown
// (workspace-relative with '/', else absolute), Line and Col 1-based (Col
// counts characters).
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Col      int    `json:"column"`
	Severity string `json:"severity"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

// String is `path:line:col severity source: message` (CONTRACT.md §6.13).
func (d Diagnostic) String() string {
	src := ""
	if d.Source != "" {
		src = " " + d.Source
	}
	return fmt.Sprintf("%s:%d:%d %s%s: %s", d.Path, d.Line, d.Col, d.Severity, src, d.Message)
}

var severities = map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}

// severityName is d's severity; a server that leaves it out means an error
// (the protocol leaves it to the client; an unknown problem is treated as
// the worst).
func severityName(s protocol.DiagnosticSeverity) string {
	if n, ok := severities[s]; ok {
		return n
	}
	return "error"
}

// wanted reports a severity the report lists: errors, and warnings with
// include_warnings.
func (m *Manager) wanted(s protocol.DiagnosticSeverity) bool {
	name := severityName(s)
	return name == "error" || name == "warning" && m.opts.IncludeWarnings
}

// convert is d in codewhale's terms, its column read from text (the
// document the server judged).
func convert(d protocol.Diagnostic, path, text string, enc encoding) Diagnostic {
	line := int(d.Range.Start.Line)
	msg := strings.Join(strings.Fields(d.Message), " ")
	return Diagnostic{Path: path, Line: line + 1, Col: enc.column(lineAt(text, line), d.Range.Start.Character),
		Severity: severityName(d.Severity), Source: d.Source, Message: clip(msg, 500)}
}

// identity is what makes two diagnostics the same problem across an edit
// that moved lines: severity, source, code, message and the text of the
// line it points at.
func identity(d protocol.Diagnostic, text string) string {
	return fmt.Sprintf("%d\x00%s\x00%v\x00%s\x00%s", d.Severity, d.Source, d.Code, d.Message,
		strings.TrimSpace(lineAt(text, int(d.Range.Start.Line))))
}

// fresh is what after holds beyond before (a multiset difference on
// identity), the wanted severities only, sorted by position; old counts the
// wanted ones that were there before.
func (m *Manager) fresh(before []protocol.Diagnostic, beforeText string, after []protocol.Diagnostic, afterText string) (
	out []protocol.Diagnostic, old int) {
	seen := map[string]int{}
	for _, d := range before {
		seen[identity(d, beforeText)]++
	}
	for _, d := range after {
		if !m.wanted(d.Severity) {
			continue
		}
		if id := identity(d, afterText); seen[id] > 0 {
			seen[id]--
			old++
			continue
		}
		out = append(out, d)
	}
	sortDiagnostics(out)
	return out, old
}

func sortDiagnostics(ds []protocol.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Range.Start, ds[j].Range.Start
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Character < b.Character
	})
}

// fileReport is what one file's check found: new problems, how many were
// there before, or why there is nothing to say.
type fileReport struct {
	server string
	path   string
	items  []Diagnostic
	old    int
	why    string // "": the server answered
}

// render is the text appended to a result (CONTRACT.md §6.13): per server,
// a line saying what it found and the new problems, each file's capped at
// MaxPerFile and all at MaxTotal; a server that could not answer gets one
// "no diagnostics (why)" line. Nothing new and nothing wrong: "".
func (m *Manager) render(reports []fileReport) string {
	var b strings.Builder
	total, whys := 0, map[string]bool{}
	for _, r := range reports {
		if r.why != "" {
			line := fmt.Sprintf("LSP: no diagnostics from %s (%s)", r.server, r.why)
			if !whys[line] {
				whys[line] = true
				fmt.Fprintln(&b, line)
			}
			continue
		}
		if len(r.items) == 0 {
			continue
		}
		noun := "error"
		for _, d := range r.items {
			if d.Severity != "error" {
				noun = "problem"
			}
		}
		fmt.Fprintf(&b, "LSP (%s): %s in %s after this change", r.server, count(len(r.items), "new "+noun), r.path)
		if r.old > 0 {
			fmt.Fprintf(&b, " (%s there before not repeated)", count(r.old, "other"))
		}
		b.WriteString(":\n")
		shown := 0
		for _, d := range r.items {
			if shown == m.opts.MaxPerFile || total == m.opts.MaxTotal {
				break
			}
			fmt.Fprintln(&b, d.String())
			shown++
			total++
		}
		if rest := len(r.items) - shown; rest > 0 {
			fmt.Fprintf(&b, "… and %d more in %s (the lsp tool's diagnostics action lists a file's problems)\n", rest, r.path)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
