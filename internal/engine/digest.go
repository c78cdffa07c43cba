package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/codewhale/codewhale/internal/provider"
)

// ActiveToolCatalogSHA256 is the single definition of the active-tool-catalog
// digest (CONTRACT.md §11.3, §15.7). For each tool in request order it
// hashes name, 0x01, description, 0x01, the canonical JSON of the input
// schema and a newline. Transport fields are not hashed. ok is false when
// the request has no tools field (nil); a present empty array hashes the
// empty string.
func ActiveToolCatalogSHA256(tools []provider.Tool) (digest string, ok bool) {
	if tools == nil {
		return "", false
	}
	h := sha256.New()
	buf := make([]byte, 0, 2048)
	for i := range tools {
		t := &tools[i]
		buf = append(buf[:0], t.Name...)
		buf = append(buf, 1)
		buf = append(buf, t.Description...)
		buf = append(buf, 1)
		buf = append(buf, t.CanonicalSchema()...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
