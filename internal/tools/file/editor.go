package file

import (
	"context"
	"time"

	"github.com/codewhale/codewhale/internal/tools"
)

// Editor is an editor's view of the files (an ACP client's
// fs/read_text_file and fs/write_text_file, ARCHITECTURE.md §9): when the
// host has one, File's read takes a text file's content from it (so
// unsaved buffers are seen) and write hands it the new text (so the edit
// lands in the editor's undo history). The File boundary is unchanged:
// the path is resolved, checked against the secret and protected-write
// rules and opened beneath the root through no symbolic link before the
// editor is asked, and the disk is read through the boundary for the
// snapshot and the diff. Paths are absolute.
type Editor interface {
	ReadText(ctx context.Context, abs string) (string, error)
	WriteText(ctx context.Context, abs, content string) error
}

// editorWait bounds one request to the editor: an editor that never
// answers fails the call instead of hanging the turn.
const editorWait = 30 * time.Second

// editorRead is abs's text as the editor holds it.
func (t *Tool) editorRead(ctx context.Context, abs string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, editorWait)
	defer cancel()
	text, err := t.editor.ReadText(ctx, abs)
	if err != nil {
		return nil, tools.ExecutionFailed("Failed to read %s through the editor: %v", abs, err)
	}
	return []byte(text), nil
}

// editorWrite hands the editor abs's new text.
func (t *Tool) editorWrite(ctx context.Context, abs, content string) error {
	ctx, cancel := context.WithTimeout(ctx, editorWait)
	defer cancel()
	if err := t.editor.WriteText(ctx, abs, content); err != nil {
		return tools.ExecutionFailed("Failed to write %s through the editor: %v", abs, err)
	}
	return nil
}
