package services

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
	"github.com/codewhale/codewhale/internal/tui/theme"
)

// SendHost is what the MCP prompts and mentions need of the root model
// besides Host: they send or queue a message.
type SendHost interface {
	Host
	// Status shows a message on the status line.
	Status(text string, sev theme.Severity) tea.Cmd
	// Busy reports whether a turn is running; Queue queues a line typed
	// meanwhile.
	Busy() bool
	Queue(line string)
	// SendMessage starts a turn with op, line being what the transcript
	// shows as typed.
	SendMessage(line string, op engine.SendMessage) tea.Cmd
	// ComposerText and SetComposerText read and replace the composer's
	// text (a message that could not go is put back).
	ComposerText() string
	SetComposerText(text string)
}

// Prompt is /mcp:<server>:<prompt> args…: the arguments are
// name=value pairs or, in the schema's order, plain values (quotes group
// words); the server's prompt is fetched off the UI goroutine and sent as
// the message.
func (sv *Services) Prompt(host SendHost, inv commands.Invocation) tea.Cmd {
	server, pr, ok := sv.c.Prompts(inv.Name)
	if !ok {
		host.SystemError(fmt.Sprintf("No MCP prompt /%s: the server is not connected or does not offer it (see /mcp).", inv.Name))
		return nil
	}
	args, err := slash.PromptArgs(pr, inv.Arg)
	if err != nil {
		host.SystemError(fmt.Sprintf("/%s: %v. Usage: /%s%s", inv.Name, err, inv.Name, slash.PromptUsage(pr, " ")))
		return nil
	}
	line := "/" + inv.Name
	if inv.Arg != "" {
		line += " " + inv.Arg
	}
	if host.Busy() {
		host.Queue(line)
		return host.Status("Queued "+line+"; it runs when this turn ends", theme.Info)
	}
	pool := sv.c.MCP
	return tea.Batch(host.Status("Getting MCP prompt "+pr.Name+" from "+server+"…", theme.Info), func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		text, err := pool.GetPrompt(ctx, server, pr.Name, args)
		return SendMsg{line: line, content: text, err: err}
	})
}

// SendMsg carries a message whose MCP part (a prompt, mentioned
// resources) was fetched off the UI goroutine.
type SendMsg struct {
	line    string // what the person typed, shown
	content string // what the model receives
	err     error
}

// Err is why the MCP part could not be fetched (nil: it was).
func (m SendMsg) Err() error { return m.err }

func (sv *Services) mcpSend(host SendHost, msg SendMsg) tea.Cmd {
	if msg.err != nil {
		host.SystemError(msg.err.Error() + " — nothing was sent.")
		if strings.TrimSpace(host.ComposerText()) == "" {
			host.SetComposerText(msg.line)
		}
		return nil
	}
	if host.Busy() {
		host.Queue(msg.line)
		return nil
	}
	return host.SendMessage(msg.line, engine.SendMessage{Content: msg.content, Provenance: engine.ProvenanceUser})
}

// Resource mentions: @<server>:<uri>, server a configured MCP server.
var mentionRE = regexp.MustCompile(`(^|\s)@([A-Za-z0-9_.-]+):(\S+)`)

// Bounds of what mentions add to one message.
const (
	maxMentions        = 8
	maxMentionBytes    = 64 << 10
	maxMentionAllBytes = 256 << 10
)

// mentions finds the @server:uri mentions of servers that offer
// resources; nil when the text has none.
func (sv *Services) mentions(text string) [][2]string {
	if sv.c.MCP == nil || !strings.Contains(text, "@") {
		return nil
	}
	var out [][2]string
	for _, g := range mentionRE.FindAllStringSubmatch(text, -1) {
		st, ok := sv.c.MCP.Status(g[2])
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
// SendMentions sends text with the MCP resources its @server:uri
// mentions name, read off the UI goroutine; ok is false when it mentions
// none.
func (sv *Services) SendMentions(host SendHost, text string) (tea.Cmd, bool) {
	refs := sv.mentions(text)
	if len(refs) == 0 {
		return nil, false
	}
	return sv.sendWithMentions(host, text, refs), true
}

func (sv *Services) sendWithMentions(host SendHost, text string, refs [][2]string) tea.Cmd {
	if len(refs) > maxMentions {
		host.SystemError(fmt.Sprintf("At most %d MCP resources per message (%d mentioned) — nothing was sent.", maxMentions, len(refs)))
		host.SetComposerText(text)
		return nil
	}
	pool := sv.c.MCP
	return tea.Batch(host.Status(fmt.Sprintf("Reading %d MCP resource(s)…", len(refs)), theme.Info), func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		content, err := mentionBlocks(ctx, pool, refs)
		if err != nil {
			return SendMsg{line: text, err: err}
		}
		return SendMsg{line: text, content: text + "\n\n" + content}
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
