package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CONTRACT.md §10.3, as the binary applies it: a key stored with
// `auth set` is the last resort; --api-key-file, DEEPSEEK_API_KEY and the
// config file's api_key each beat it, and each beats the ones after it.
func TestKeyPrecedenceCLI(t *testing.T) {
	t.Parallel()
	sources := []string{"flag", "env", "config", "store"} // highest first
	for i, hi := range sources {
		for _, lo := range sources[i+1:] {
			t.Run(hi+" beats "+lo, func(t *testing.T) {
				t.Parallel()
				c := newCLI(t, nil)
				args := []string{"auth", "status"}
				for _, s := range []string{hi, lo} {
					switch s {
					case "flag":
						f := filepath.Join(c.home, "key")
						if err := os.WriteFile(f, []byte("sk-flag\n"), 0o600); err != nil {
							t.Fatal(err)
						}
						args = append(args, "--api-key-file", f)
					case "env":
						c.env = append(c.env, "DEEPSEEK_API_KEY=sk-env")
					case "config":
						c.config("api_key = \"sk-config\"\n")
					case "store":
						set := c.command("auth", "set")
						set.Stdin = strings.NewReader("sk-store\n")
						if out, err := set.CombinedOutput(); err != nil {
							t.Fatalf("auth set: %v %s", err, out)
						}
					}
				}
				out, errOut, code := c.run(args...)
				want := map[string]string{"flag": "from --api-key", "env": "from DEEPSEEK_API_KEY",
					"config": "from " + filepath.Join(c.home, ".codewhale", "config.toml"), "store": "from the secret store"}[hi]
				if code != 0 || !strings.Contains(out, "api key: set, "+want+" ") {
					t.Errorf("auth status (%d): %s%s\nwant the key %s", code, out, errOut, want)
				}
			})
		}
	}
}
