package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/tools/file"
)

// clientFiles is the client's file system (fs/read_text_file,
// fs/write_text_file) as the File tool's Editor: reads see the editor's
// unsaved buffers and writes land in its undo history. The File tool has
// checked each path inside its boundary before it asks (file.Editor).
type clientFiles struct {
	a       *Agent
	session string // set once the host has opened the session, before any turn
}

func (f *clientFiles) ReadText(ctx context.Context, abs string) (string, error) {
	resp, err := f.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.session), Path: abs})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

func (f *clientFiles) WriteText(ctx context.Context, abs, content string) error {
	_, err := f.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.session), Path: abs, Content: content})
	return err
}

// editor is the client's file system when it offers both halves of it;
// nil otherwise (File then reads and writes the disk alone).
func (a *Agent) editor() *clientFiles {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.caps.Fs.ReadTextFile || !a.caps.Fs.WriteTextFile {
		return nil
	}
	return &clientFiles{a: a}
}

var _ file.Editor = (*clientFiles)(nil)
