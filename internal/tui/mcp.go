package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/tui/commands"
	"github.com/codewhale/codewhale/internal/tui/slash"
)

// runMCPPrompt is /mcp:<server>:<prompt> args…: the arguments are
// name=value pairs or, in the schema's order, plain values (quotes group
// words); the server's prompt is fetched off the UI goroutine and sent as
// the message.
func (m *Model) runMCPPrompt(inv commands.Invocation) tea.Cmd {
	server, pr, ok := m.table.Prompt(inv.Name)
	if !ok {
		m.systemError(fmt.Sprintf("No MCP prompt /%s: the server is not connected or does not offer it (see /mcp).", inv.Name))
		return nil
	}
	args, err := slash.PromptArgs(pr, inv.Arg)
	if err != nil {
		m.systemError(fmt.Sprintf("/%s: %v. Usage: /%s%s", inv.Name, err, inv.Name, slash.PromptUsage(pr, " ")))
		return nil
	}
	line := "/" + inv.Name
	if inv.Arg != "" {
		line += " " + inv.Arg
	}
	if m.turn.busy {
		m.queue = append(m.queue, line)
		return m.setStatus("Queued "+line+"; it runs when this turn ends", sevInfo)
	}
	pool := m.o.MCP
	return tea.Batch(m.setStatus("Getting MCP prompt "+pr.Name+" from "+server+"…", sevInfo), func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		text, err := pool.GetPrompt(ctx, server, pr.Name, args)
		return mcpSendMsg{line: line, content: text, err: err}
	})
}

// mcpSendMsg carries a message whose MCP part (a prompt, mentioned
// resources) was fetched off the UI goroutine.
type mcpSendMsg struct {
	line    string // what the person typed, shown
	content string // what the model receives
	err     error
}

func (m *Model) mcpSend(msg mcpSendMsg) tea.Cmd {
	if msg.err != nil {
		m.systemError(msg.err.Error() + " — nothing was sent.")
		if strings.TrimSpace(m.comp.Value()) == "" {
			m.comp.SetValue(msg.line)
		}
		return nil
	}
	if m.turn.busy {
		m.queue = append(m.queue, msg.line)
		return nil
	}
	return m.sendMessage(msg.line, engine.SendMessage{Content: msg.content, Provenance: engine.ProvenanceUser})
}

// Resource mentions: @<server>:<uri>, server a configured MCP server.
var mentionRE = regexp.MustCompile(`(^|\s)@([A-Za-z0-9_.-]+):(\S+)`)

// Bounds of what mentions add to one message.
const (
	maxMentions        = 8
	maxMentionBytes    = 64 << 10
	maxMentionAllBytes = 256 << 10
)

// mcpMentions finds the @server:uri mentions of servers that offer
// resources; nil when the text has none.
func (m *Model) mcpMentions(text string) [][2]string {
	if m.o.MCP == nil || !strings.Contains(text, "@") {
		return nil
	}
	var out [][2]string
	for _, g := range mentionRE.FindAllStringSubmatch(text, -1) {
		st, ok := m.o.MCP.Status(g[2])
		if !ok || !(st.OffersResources || (st.Lazy && st.State == mcp.StatePending)) {
			continue
		}
		out = append(out, [2]string{g[2], strings.TrimRight(g[3], ".,;:!?)")})
	}
	return out
}

// sendWithMentions reads the mentioned resources off the UI goroutine and
// sends the text followed by one block per resource, bounded and marked as
// coming from the server, not the workspace.
func (m *Model) sendWithMentions(text string, refs [][2]string) tea.Cmd {
	if len(refs) > maxMentions {
		m.systemError(fmt.Sprintf("At most %d MCP resources per message (%d mentioned) — nothing was sent.", maxMentions, len(refs)))
		m.comp.SetValue(text)
		return nil
	}
	pool := m.o.MCP
	return tea.Batch(m.setStatus(fmt.Sprintf("Reading %d MCP resource(s)…", len(refs)), sevInfo), func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		content, err := mentionBlocks(ctx, pool, refs)
		if err != nil {
			return mcpSendMsg{line: text, err: err}
		}
		return mcpSendMsg{line: text, content: text + "\n\n" + content}
	})
}

// mentionBlocks renders the mentioned resources.
func mentionBlocks(ctx context.Context, pool *mcp.Pool, refs [][2]string) (string, error) {
	var b strings.Builder
	total := 0
	for _, r := range refs {
		contents, err := pool.Resource(ctx, r[0], r[1])
		if err != nil {
			return "", fmt.Errorf("@%s:%s: %v", r[0], r[1], err)
		}
		for _, c := range contents {
			body := c.Text
			if c.Blob != nil {
				body = fmt.Sprintf("[binary content omitted: %s, %d bytes]", c.Blob.MIMEType, c.Blob.Size)
			}
			cut := ""
			if limit := min(maxMentionBytes, maxMentionAllBytes-total); len(body) > limit {
				n := max(limit, 0)
				for n > 0 && body[n]&0xC0 == 0x80 {
					n--
				}
				cut = fmt.Sprintf("\n[cut: %d of %d bytes shown]", n, len(body))
				body = body[:n]
			}
			total += len(body)
			fmt.Fprintf(&b, "<mcp_resource server=%q uri=%q mime=%q source=\"MCP server %s, not the workspace\">\n%s%s\n</mcp_resource>\n",
				r[0], c.URI, c.MIMEType, r[0], body, cut)
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
