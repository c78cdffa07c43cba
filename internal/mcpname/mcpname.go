// Package mcpname is the one definition of an MCP tool's model name
// (mcp_<server>_<tool>, CONTRACT.md §4.7), a leaf the MCP client and the
// readers of other agents' tool lists (projectctx) share.
package mcpname

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/codewhale/codewhale/internal/provider"
)

// MaxModelNameLen caps a model tool name as the provider sees it (after the
// reversible wire encoding of CONTRACT.md §10.4, which doubles '-'); providers
// refuse function names longer than 64 characters.
const MaxModelNameLen = 64

// ModelServerPattern is the tool-name glob matching every tool of server
// (mcp_<server>_*), in ModelToolName's spelling of the server.
func ModelServerPattern(server string) string { return "mcp_" + sanitize(server) + "_*" }

// ModelToolName is the one definition of an MCP tool's model name:
// mcp_<server>_<tool>. Characters outside [A-Za-z0-9_-] become '_' ('-' is
// kept: the provider client encodes it reversibly on the wire). A name whose
// wire form would exceed MaxModelNameLen is cut and given an 8-hex-digit
// suffix hashed from the original (server, tool) pair, so the result is
// deterministic and distinct pairs stay distinct with high probability.
//
// Underscores are not escaped, so distinct pairs can collide (server "my" +
// tool "db_x" and server "my_db" + tool "x"); the pool hides such names.
func ModelToolName(server, tool string) string {
	name := "mcp_" + sanitize(server) + "_" + sanitize(tool)
	if wireLen(name) <= MaxModelNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	budget := MaxModelNameLen - len(suffix)
	var b strings.Builder
	used := 0
	for i := 0; i < len(name); i++ { // name is ASCII after sanitize
		w := 1
		if name[i] == '-' {
			w = 2
		}
		if used+w > budget {
			break
		}
		b.WriteByte(name[i])
		used += w
	}
	// An 'x' the wire encoding escapes (CONTRACT.md §10.4) is longer than
	// counted above: cut further until the wire form fits.
	cut := b.String()
	for len(cut) > 0 && wireLen(cut+suffix) > MaxModelNameLen {
		cut = cut[:len(cut)-1]
	}
	return cut + suffix
}

// sanitize keeps [A-Za-z0-9_-] and maps every other character (each rune)
// to '_'. An empty input becomes "_" so the name keeps its three parts.
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// wireLen is the length of name as the provider receives it.
func wireLen(name string) int { return len(provider.EncodeToolName(name)) }
