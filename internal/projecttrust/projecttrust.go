// Package projecttrust is the user's record of which project files may run
// things in their sessions: a repository's .codewhale/hooks.toml
// (CONTRACT.md §17.4), its sub-agent definitions (CONTRACT.md §6.5) and its
// .mcp.json of MCP servers (CONTRACT.md §12.5). Each entry maps a file's
// canonical path to the SHA-256 of the content the user reviewed and
// trusted, in $CODEWHALE_HOME/hooks-trust.json; a file edited since must be
// trusted again. It is the one trust step for project files: the hooks
// runner, the agent-definition loader and the MCP pool all read and write
// it here.
package projecttrust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// FileName is the record's name in the CodeWhale home (the name it had when
// only hooks used it).
const FileName = "hooks-trust.json"

// Path is the record of home.
func Path(home string) string { return filepath.Join(home, FileName) }

// Sum is the digest a record keeps of data.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Canonical is p with symbolic links resolved (confine.Resolve): the key a
// file is recorded under.
func Canonical(p string) string { return confine.Resolve(p) }

// Read returns the record of home (empty when there is none, or no home).
func Read(home string) (map[string]string, error) {
	out := map[string]string{}
	if home == "" {
		return out, nil
	}
	data, err := os.ReadFile(Path(home))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (delete it to trust project files afresh)", Path(home), err)
	}
	return out, nil
}

// Record adds sums (canonical path → digest) to the record of home,
// keeping every other entry.
func Record(home string, sums map[string]string) error {
	if home == "" {
		return errors.New("recording trust: no CodeWhale home")
	}
	trusted, err := Read(home)
	if err != nil {
		return err
	}
	for p, s := range sums {
		trusted[p] = s
	}
	data, _ := json.MarshalIndent(trusted, "", "  ")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	if err := atomicfile.Write(Path(home), append(data, '\n'), 0o600, false); err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	return nil
}
