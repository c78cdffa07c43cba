package tui

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/mcp"
	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/tui/services"
)

// everythingPool starts a pool with server-everything and a server that
// cannot start.
func everythingPool(t *testing.T) *mcp.Pool {
	t.Helper()
	bin := e2e.MCPServerBin(t, "mcp-server-everything")
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{bin, "stdio"}},
		"broken":     map[string]any{"command": "/nonexistent/mcp-server"},
	}})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	p := mcp.NewPool(path, mcp.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { _ = p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.Start(ctx)
	if st, _ := p.Status("everything"); st.State != mcp.StateConnected {
		t.Fatalf("everything: %s %s", st.State, st.Error)
	}
	return p
}

// runFor runs cmd (a batch too) and feeds back the first message of type
// T; commands still running after a second (toast timers) are left.
func runFor[T tea.Msg](t *testing.T, d *direct, cmd tea.Cmd) T {
	t.Helper()
	var zero T
	found := make(chan T, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			if m, ok := msg.(T); ok {
				select {
				case found <- m:
				default:
				}
			}
		case <-time.After(20 * time.Second):
		}
	}
	run(cmd)
	select {
	case m := <-found:
		d.m.Update(m)
		return m
	default:
		t.Fatalf("no %T came back", zero)
		return zero
	}
}

// /mcp lists each server's transport, state, protocol, counts, prompts as
// commands and last error; login says how to sign in (CONTRACT.md §14.7).
// README.md "Slash commands": /mcp lists the servers: transport, state, counts, last error
func TestMCPCommandListsServers(t *testing.T) {
	t.Parallel()
	p := everythingPool(t)
	d := newDirect(t, 160, 60, func(o *Options) { o.MCP = p })
	runFor[services.NoteMsg](t, d, d.submit("/mcp"))
	d.mustShow("everything  stdio  connected  protocol 2025-11-25", "tools · 7 resources (+2 templates) · 4 prompts",
		"/mcp:everything:args-prompt <city> [state]", "/mcp:everything:simple-prompt",
		"broken  stdio  failed", "last error: could not start", "/mcp reload [server] reconnects")
	d.submit("/mcp login everything")
	d.mustShow("Sign in from a shell: `codewhale mcp login everything`")
	d.submit("/mcp login nope")
	d.mustShow("No MCP server named 'nope'")
	d.submit("/mcp bogus")
	d.mustShow(services.MCPUsage)
	runFor[services.NoteMsg](t, d, d.submit("/mcp reload everything"))
	d.mustShow("everything  stdio  connected")
	off := newDirect(t, 100, 20)
	off.submit("/mcp")
	off.mustShow("MCP is off in this session")
}

// A server's prompts are slash commands /mcp:<server>:<prompt>: the popup
// completes them with their arguments, and running one sends the
// server's prompt as the message.
// README.md "Slash commands": /mcp:<server>:<prompt> sends a server's prompt as the message
func TestMCPPromptAsSlashCommand(t *testing.T) {
	t.Parallel()
	p := everythingPool(t)
	d := newDirect(t, 100, 20, func(o *Options) { o.MCP = p })
	d.typeText("/mcp:everything:")
	d.mustShow("/mcp:everything:args-prompt", "A prompt with two arguments", "/mcp:everything:simple-prompt")
	golden.RequireEqual(t, []byte(d.screen()))
	d.key("esc")
	d.m.comp.SetValue("")

	d.submit("/mcp:everything:args-prompt")
	d.mustShow("/mcp:everything:args-prompt: missing city. Usage: /mcp:everything:args-prompt <city> [state]")
	msg := runFor[services.SendMsg](t, d, d.submit(`/mcp:everything:args-prompt "New York" state=NY`))
	if msg.Err() != nil {
		t.Fatal(msg.Err())
	}
	op, ok := d.eng.lastOp().(engine.SendMessage)
	if !ok || !strings.Contains(op.Content, "New York") || !strings.Contains(op.Content, "NY") {
		t.Fatalf("sent %#v", d.eng.lastOp())
	}
	d.mustShow(`/mcp:everything:args-prompt "New York" state=NY`)
	d.submit("/mcp:nowhere:x")
	d.mustShow("No MCP prompt /mcp:nowhere:x")
}

// @server:uri mentions are completed from the servers' resources and
// expanded below the message, marked as the server's, not the workspace's.
// README.md "MCP servers": @<server>:<uri> is completed from the servers' resources and added below the message in an <mcp_resource … source="MCP server <name>, not the workspace"> block.
func TestMCPResourceMention(t *testing.T) {
	t.Parallel()
	p := everythingPool(t)
	d := newDirect(t, 140, 24, func(o *Options) { o.MCP = p; o.Files = func() []string { return []string{"main.go"} } })
	d.typeText("summarise @everything:architecture")
	d.mustShow("@everything:demo://resource/static/document/architecture.md")
	d.key("esc")
	d.m.comp.SetValue("")

	uri := "demo://resource/static/document/architecture.md"
	line := "summarise @everything:" + uri + " please"
	msg := runFor[services.SendMsg](t, d, d.submit(line))
	if msg.Err() != nil {
		t.Fatal(msg.Err())
	}
	op, ok := d.eng.lastOp().(engine.SendMessage)
	if !ok || !strings.HasPrefix(op.Content, line+"\n\n<mcp_resource server=\"everything\" uri=\""+uri+"\" mime=\"text/markdown\" source=\"MCP server everything, not the workspace\">") ||
		!strings.HasSuffix(op.Content, "</mcp_resource>") {
		t.Fatalf("sent %#v", d.eng.lastOp())
	}
	d.mustShow("summarise @everything:" + uri)
	d.mustNotShow("<mcp_resource")

	d.events(engine.TurnComplete{Status: engine.TurnCompleted})
	bad := runFor[services.SendMsg](t, d, d.submit("read @everything:demo://nope/missing"))
	if bad.Err() == nil {
		t.Fatal("a missing resource was sent")
	}
	d.mustShow("@everything:demo://nope/missing", "nothing was sent")
	// Not a server: left as text, sent at once.
	d.m.comp.SetValue("")
	d.submit("mail me @someone:else")
	if op, ok := d.eng.lastOp().(engine.SendMessage); !ok || op.Content != "mail me @someone:else" {
		t.Fatalf("a non-server mention changed the message: %#v", d.eng.lastOp())
	}
}
