package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
)

// ExportFormat is what /export and `codewhale sessions export` write.
type ExportFormat string

const (
	ExportMarkdown ExportFormat = "markdown"
	ExportJSON     ExportFormat = "json"
)

// ParseExportFormat reads a format name: markdown (md) or json.
func ParseExportFormat(s string) (ExportFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "md", "markdown":
		return ExportMarkdown, nil
	case "json":
		return ExportJSON, nil
	}
	return "", fmt.Errorf("unknown export format %q: use markdown (md) or json", s)
}

// Ext is the file extension of the format.
func (f ExportFormat) Ext() string {
	if f == ExportJSON {
		return ".json"
	}
	return ".md"
}

// exportDoc is the JSON export: the metadata, the system prompt and every
// message of the history in the session file's own message format.
type exportDoc struct {
	Format       string             `json:"format"`
	Version      int                `json:"version"`
	Session      Meta               `json:"session"`
	SystemPrompt string             `json:"system_prompt,omitempty"`
	Messages     []provider.Message `json:"messages"`
}

// Export writes the session's transcript in format f. The text is what the
// session file holds, so keys were redacted before it was saved.
func Export(w io.Writer, l *Loaded, f ExportFormat) error {
	if f == ExportJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		msgs := l.Session.Messages
		if msgs == nil {
			msgs = []provider.Message{}
		}
		return enc.Encode(exportDoc{Format: "codewhale-session", Version: 1, Session: l.Meta,
			SystemPrompt: l.Session.SystemPrompt, Messages: msgs})
	}
	var b strings.Builder
	writeMarkdownHead(&b, l.Meta)
	for _, m := range l.Session.Messages {
		writeMarkdownMessage(&b, m)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownHead(b *strings.Builder, m Meta) {
	fmt.Fprintf(b, "# %s\n\n", orText(m.Title, "Session "+ShortID(m.ID)))
	fmt.Fprintf(b, "- Session: `%s`\n", m.ID)
	if m.ParentSessionID != "" {
		fmt.Fprintf(b, "- Forked from: `%s`\n", m.ParentSessionID)
	}
	fmt.Fprintf(b, "- Workspace: `%s`\n- Model: %s\n", m.Workspace, orText(m.Model, "unknown"))
	fmt.Fprintf(b, "- Created: %s · updated %s\n", m.CreatedAt.UTC().Format("2006-01-02 15:04 MST"),
		m.UpdatedAt.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(b, "- Messages: %d · tokens %d · cost $%.4f\n", m.MessageCount, m.TotalTokens, m.Cost)
}

// writeMarkdownMessage writes one message: the user's prompts, the model's
// reasoning, text and tool calls, tool results, and codewhale's own notices.
func writeMarkdownMessage(b *strings.Builder, m provider.Message) {
	switch {
	case m.Typed():
		fmt.Fprintf(b, "\n## You\n\n%s\n", m.PromptText())
		writeMarkdownImages(b, m)
	case m.Role == provider.RoleUser && m.HasBlock(provider.BlockToolResult):
		for _, blk := range m.Content {
			if blk.Type == provider.BlockToolResult {
				label := "Result"
				if blk.IsError {
					label = "Result (error)"
				}
				fmt.Fprintf(b, "\n**%s** `%s`\n\n%s", label, blk.ToolUseID, fenced(blk.Content, ""))
			}
		}
		writeMarkdownImages(b, m)
	case m.Role == provider.RoleUser, m.Role == provider.RoleSystem:
		if t := strings.TrimSpace(m.Text()); t != "" {
			fmt.Fprintf(b, "\n## codewhale\n\n%s", fenced(t, ""))
		}
	default:
		writeMarkdownReply(b, m)
	}
}

// writeMarkdownImages writes m's images inline as data URLs, so the
// export keeps them in one file.
func writeMarkdownImages(b *strings.Builder, m provider.Message) {
	for _, img := range m.Images() {
		alt := strings.NewReplacer("[", "(", "]", ")").Replace(strings.TrimSuffix(strings.TrimPrefix(img.Description(), "["), "]"))
		fmt.Fprintf(b, "\n![%s](%s)\n", alt, img.ImageURL)
	}
}

func writeMarkdownReply(b *strings.Builder, m provider.Message) {
	head := "\n## Assistant\n"
	if m.Role == provider.RoleAssistantInterrupted {
		head = "\n## Assistant (interrupted)\n"
	}
	b.WriteString(head)
	if th := strings.TrimSpace(m.Thinking()); th != "" && th != provider.ReasoningOmitted {
		b.WriteString("\n<details><summary>Reasoning</summary>\n\n")
		b.WriteString(th)
		b.WriteString("\n\n</details>\n")
	}
	if tx := strings.TrimSpace(m.Text()); tx != "" {
		fmt.Fprintf(b, "\n%s\n", tx)
	}
	for _, u := range m.ToolUses() {
		in := string(u.Input)
		var v any
		if json.Unmarshal(u.Input, &v) == nil {
			if pretty, err := json.MarshalIndent(v, "", "  "); err == nil {
				in = string(pretty)
			}
		}
		fmt.Fprintf(b, "\n**Tool call** `%s` `%s`\n\n%s", u.Name, u.ID, fenced(in, "json"))
	}
}

// fenced wraps s in a code fence longer than any backtick run inside it.
func fenced(s, lang string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// ExportFile writes the export to a new file at path; an existing file is
// never overwritten, and a failed export leaves no partial file.
func ExportFile(path string, l *Loaded, f ExportFormat) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := Export(file, l, f); err != nil {
		file.Close()
		os.Remove(path)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	if err := file.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	return nil
}
