package lsp

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
)

// pinTSServer points typescript-language-server at the TypeScript installed
// beside it. Left to itself the server prefers the workspace's
// node_modules/typescript, which would run code the repository ships as soon
// as one of its files is read. Without a TypeScript beside it the built-in
// server is not used.
func pinTSServer(bin string, s *Server) error {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return err
	}
	pkg := filepath.Dir(filepath.Dir(real)) // …/typescript-language-server (bin is lib/cli.mjs)
	for _, p := range []string{
		filepath.Join(pkg, "node_modules", "typescript", "lib", "tsserver.js"),
		filepath.Join(filepath.Dir(pkg), "typescript", "lib", "tsserver.js"),
	} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			opts := map[string]any{}
			if m, ok := s.InitOptions.(map[string]any); ok {
				opts = maps.Clone(m)
			}
			opts["tsserver"] = map[string]any{"path": p}
			s.InitOptions = opts
			return nil
		}
	}
	return errors.New("no TypeScript is installed beside typescript-language-server (npm install typescript next to it); " +
		"the workspace's own is never used")
}
