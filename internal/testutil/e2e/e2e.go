// Package e2e finds the external parts end-to-end tests run against — the
// npm MCP servers that scripts/install-mcp-servers.sh installs, the ACP client
// SDK (scripts/install-acp-client.sh), tmux — and
// skips a test when one is missing, unless CODEWHALE_REQUIRE_E2E=1 (set by
// .ci/run), where a missing part fails the test instead.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing skips t, or fails it when CODEWHALE_REQUIRE_E2E=1.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CODEWHALE_REQUIRE_E2E") == "1" {
		t.Fatalf("CODEWHALE_REQUIRE_E2E=1 but %s", why)
	}
	t.Skip(why)
}

// ModuleRoot is the directory holding go.mod above the working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// MCPServerBin returns the path of an npm-installed MCP server binary such
// as "mcp-server-everything".
func MCPServerBin(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		Missing(t, "node is not installed")
	}
	bin := filepath.Join(ModuleRoot(t), ".cache", "mcp-servers", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		Missing(t, bin+" is missing; run scripts/install-mcp-servers.sh")
	}
	return bin
}

// Tmux returns the tmux binary.
func Tmux(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		Missing(t, "tmux is not installed")
	}
	return p
}

// LSPServer returns the path of a language server scripts/install-lsp-servers.sh
// installs: gopls in .cache/bin, the npm ones (pyright-langserver,
// typescript-language-server) in .cache/lsp-servers.
func LSPServer(t testing.TB, name string) string {
	t.Helper()
	root := ModuleRoot(t)
	bin := filepath.Join(root, ".cache", "bin", name)
	if name != "gopls" {
		if _, err := exec.LookPath("node"); err != nil {
			Missing(t, "node is not installed")
		}
		bin = filepath.Join(root, ".cache", "lsp-servers", "node_modules", ".bin", name)
	}
	if _, err := os.Stat(bin); err != nil {
		Missing(t, bin+" is missing; run scripts/install-lsp-servers.sh")
	}
	return bin
}

// ACPClientSDK returns the directory of the Agent Client Protocol's
// TypeScript SDK that scripts/install-acp-client.sh installs, the real
// client the `codewhale acp` tests drive the agent with.
func ACPClientSDK(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		Missing(t, "node is not installed")
	}
	dir := filepath.Join(ModuleRoot(t), ".cache", "acp-client", "node_modules", "@agentclientprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(dir, "dist", "v1", "stable", "acp.js")); err != nil {
		Missing(t, dir+" is missing; run scripts/install-acp-client.sh")
	}
	return dir
}
