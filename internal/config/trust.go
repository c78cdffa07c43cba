package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// workspaceTrustFile is the per-workspace trust list `/trust add` manages
// (CONTRACT.md §5): {"workspaces":{"<canonical ws>":["<canonical path>",…]}}.
const workspaceTrustFile = "workspace-trust.json"

type workspaceTrust struct {
	Workspaces map[string][]string `json:"workspaces"`
}

// canonicalDir returns p absolute, with ~ expanded and symlinks resolved
// (the deepest existing ancestor's, for a path that does not exist yet).
func canonicalDir(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir := filepath.Dir(p)
	if dir == p {
		return p
	}
	return filepath.Join(canonicalDir(dir), filepath.Base(p))
}

// trustedPaths resolves the user config's trusted_paths: canonical, without
// duplicates, and never the filesystem root (which would remove the
// boundary rather than widen it).
func trustedPaths(path string, raw []string) ([]string, error) {
	var out []string
	for _, p := range raw {
		if strings.TrimSpace(p) == "" {
			continue
		}
		c := canonicalDir(strings.TrimSpace(p))
		if filepath.Dir(c) == c {
			return nil, fmt.Errorf("config: %s: trusted_paths: %q is the filesystem root; list the directories to trust instead", path, p)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// WorkspaceTrust returns the trusted roots `/trust add` recorded for the
// workspace ws under home (canonical; none when the file is missing). A
// list that names the filesystem root (written by hand: `/trust add`
// refuses it) is an error, as it is in trusted_paths: it would remove the
// boundary rather than widen it (CONTRACT.md §5).
func WorkspaceTrust(home, ws string) ([]string, error) {
	t, err := readWorkspaceTrust(home)
	if err != nil {
		return nil, err
	}
	list := t.Workspaces[canonicalDir(ws)]
	for _, r := range list {
		if filepath.IsAbs(r) && filepath.Dir(filepath.Clean(r)) == filepath.Clean(r) {
			return nil, fmt.Errorf("%s lists the filesystem root %q as trusted for %s; remove it and trust the "+
				"directories you need instead", filepath.Join(home, workspaceTrustFile), r, canonicalDir(ws))
		}
	}
	return list, nil
}

// AddWorkspaceTrust records root as trusted for ws and returns the list.
func AddWorkspaceTrust(home, ws, root string) ([]string, error) {
	return editWorkspaceTrust(home, ws, func(list []string) ([]string, error) {
		c := canonicalDir(root)
		if filepath.Dir(c) == c {
			return nil, fmt.Errorf("%q is the filesystem root; trust the directories you need instead", root)
		}
		if !slices.Contains(list, c) {
			list = append(list, c)
		}
		return list, nil
	})
}

// RemoveWorkspaceTrust drops root from ws's list and returns the list.
func RemoveWorkspaceTrust(home, ws, root string) ([]string, error) {
	return editWorkspaceTrust(home, ws, func(list []string) ([]string, error) {
		c := canonicalDir(root)
		i := slices.Index(list, c)
		if i < 0 {
			return nil, fmt.Errorf("%s is not a trusted path of this workspace", c)
		}
		return slices.Delete(list, i, i+1), nil
	})
}

func editWorkspaceTrust(home, ws string, edit func([]string) ([]string, error)) ([]string, error) {
	t, err := readWorkspaceTrust(home)
	if err != nil {
		return nil, err
	}
	key := canonicalDir(ws)
	list, err := edit(slices.Clone(t.Workspaces[key]))
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		delete(t.Workspaces, key)
	} else {
		t.Workspaces[key] = list
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, workspaceTrustFile)
	if err := atomicfile.Write(path, append(b, '\n'), 0o600, false); err != nil {
		return nil, fmt.Errorf("saving %s: %w", path, err)
	}
	return list, nil
}

func readWorkspaceTrust(home string) (workspaceTrust, error) {
	path := filepath.Join(home, workspaceTrustFile)
	t := workspaceTrust{Workspaces: map[string][]string{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("%s is not valid JSON (%v); fix or delete it", path, err)
	}
	if t.Workspaces == nil {
		t.Workspaces = map[string][]string{}
	}
	return t, nil
}
