//go:build unix

package git

import (
	"context"
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/gitfixture"
	"github.com/codewhale/codewhale/internal/tools"
)

// A planted core.excludesFile or core.attributesFile naming a FIFO or
// /dev/zero neither hangs nor exhausts the go-git backend.
func TestConfigNamedFilesMustBeRegular(t *testing.T) {
	t.Parallel()
	r := gitfixture.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("first")
	r.Write("new.txt", "n\n")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r.Run("config", "core.excludesFile", fifo)
	r.Run("config", "core.attributesFile", "/dev/zero")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := New(Options{DisableCLI: true}).Execute(ctx, &tools.Context{Workspace: r.Dir}, json.RawMessage(`{"action":"status"}`))
	if err != nil || ctx.Err() != nil {
		t.Fatalf("status: %v (%v)", err, ctx.Err())
	}
	if got := res.Content; len(got) == 0 {
		t.Error("empty status")
	}
}
