package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools/handles"
)

// Handle is a bounded reference to a child's transcript; the transcript
// itself stays out of the parent's context and is read on demand with
// handle_read. It is the shared handle shape.
type Handle = handles.Handle

func newHandle(id string, msgs []provider.Message) Handle {
	text := RenderTranscript(msgs)
	sum := sha256.Sum256([]byte(text))
	return Handle{Kind: "var_handle", SessionID: "agent:" + id, Name: "transcript", Type: "transcript",
		Length: len([]rune(text)), ReprPreview: truncateRunes(lastLine(text), transcriptPreviewRunes),
		SHA256: hex.EncodeToString(sum[:])}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// RenderTranscript is the readable text of a child's history.
func RenderTranscript(msgs []provider.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		role := string(m.Role)
		if m.EngineMade() {
			role = "runtime" // a notice or summary the engine wrote, not the parent's input
		}
		for _, blk := range m.Content {
			switch blk.Type {
			case provider.BlockText:
				if strings.HasPrefix(blk.Text, "<turn_meta>") {
					continue
				}
				fmt.Fprintf(&b, "[%s] %s\n", role, blk.Text)
			case provider.BlockToolUse:
				fmt.Fprintf(&b, "[%s tool_use %s] %s %s\n", m.Role, blk.ID, blk.Name, blk.Input)
			case provider.BlockToolResult:
				label := "tool_result"
				if blk.IsError {
					label = "tool_error"
				}
				fmt.Fprintf(&b, "[%s %s] %s\n", label, blk.ToolUseID, blk.Content)
			}
		}
	}
	return b.String()
}

// Transcript returns a child's transcript text: from memory while the
// session lives, else from its saved file.
func (m *Manager) Transcript(id string) (string, error) {
	if c, err := m.Get(id); err == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		return RenderTranscript(c.messages), nil
	}
	if m.opts.TranscriptDir == "" {
		return "", fmt.Errorf("no transcript for %s", id)
	}
	f, err := readTranscript(m.opts.TranscriptDir, filepath.Base(id))
	if err != nil {
		return "", err
	}
	return RenderTranscript(f.messages), nil
}
