package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
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

// transcriptFile is the saved form of a child's transcript.
type transcriptFile struct {
	SchemaVersion int                `json:"schema_version"`
	PID           int                `json:"pid,omitempty"` // the process running the child, for ReconcileDir
	Agent         Snapshot           `json:"agent"`
	Messages      []provider.Message `json:"messages"`
}

// save refreshes the handle and writes the transcript atomically.
func (c *Child) save() {
	c.mu.Lock()
	msgs := c.messages
	c.handle = newHandle(c.ID, msgs)
	c.mu.Unlock()
	dir := c.m.opts.TranscriptDir
	if dir == "" {
		return
	}
	data, err := json.Marshal(transcriptFile{SchemaVersion: 1, PID: os.Getpid(), Agent: c.Snapshot(), Messages: msgs})
	if err != nil {
		return
	}
	_ = atomicfile.Write(filepath.Join(dir, c.ID+".json"), data, 0o600, false)
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
	data, err := os.ReadFile(filepath.Join(m.opts.TranscriptDir, filepath.Base(id)+".json"))
	if err != nil {
		return "", fmt.Errorf("no saved transcript for %s: %w", id, err)
	}
	var f transcriptFile
	if err := json.Unmarshal(data, &f); err != nil {
		return "", fmt.Errorf("transcript of %s is unreadable: %w", id, err)
	}
	return RenderTranscript(f.Messages), nil
}
