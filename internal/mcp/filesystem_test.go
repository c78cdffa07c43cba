package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// server-filesystem confined to a temp dir: reading inside works, reading
// outside is the server's isError, which becomes a failed result.
func TestFilesystemServerConfinedToTempDir(t *testing.T) {
	t.Parallel()
	bin := serverBin(t, "mcp-server-filesystem")
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "inside.txt"), []byte("hello inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPool(t, writeConfig(t, map[string]any{
		"fs": map[string]any{"command": "node", "args": []string{bin, root}},
	}, nil), Options{})
	requireConnected(t, p, "fs")
	read := findTool(t, p, "mcp_fs_read_text_file")

	cases := []struct {
		name, path  string
		wantSuccess bool
		want        string
	}{
		{"inside", filepath.Join(root, "inside.txt"), true, `hello inside\n`},
		{"outside", filepath.Join(outside, "secret.txt"), false, "Access denied - path outside allowed directories"},
	}
	for _, c := range cases {
		res, err := call(t, context.Background(), read, `{"path":"`+c.path+`"}`)
		if err != nil {
			t.Fatalf("%s: err %v", c.name, err)
		}
		if res.Success != c.wantSuccess || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s: success %v content %q; want success %v containing %q", c.name, res.Success, res.Content, c.wantSuccess, c.want)
		}
		if !c.wantSuccess && strings.HasPrefix(res.Content, "{") {
			t.Errorf("%s: an isError result must be the joined text, got JSON %s", c.name, res.Content)
		}
	}
}
