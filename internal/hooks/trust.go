package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/projecttrust"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// ProjectFile is where a workspace keeps its hooks.
func ProjectFile(workspace string) string {
	return filepath.Join(workspace, ".codewhale", "hooks.toml")
}

// Project is a workspace's hooks.toml as the session found it.
type Project struct {
	Path    string
	Exists  bool
	Trusted bool // the content is the one the user trusted
	Changed bool // trusted once, edited since
	Events  []string
	hooks   []*Hook
	sum     string
}

// Line is one line about the file for the user ("" when there is none or
// it is trusted).
func (p Project) Line() string {
	switch {
	case !p.Exists || len(p.hooks) == 0:
		return ""
	case p.Trusted:
		return fmt.Sprintf("Project hooks: %s (trusted).", p.Path)
	case p.Changed:
		return fmt.Sprintf("Project hooks: %s changed since you trusted it; its %d hook(s) (%s) do not run until you trust it again: /hooks trust.",
			p.Path, len(p.hooks), strings.Join(p.Events, ", "))
	}
	return fmt.Sprintf("Project hooks: %s defines %d hook(s) (%s) that do not run until you trust the file: review it, then /hooks trust.",
		p.Path, len(p.hooks), strings.Join(p.Events, ", "))
}

func loadProject(home, workspace string) (Project, error) {
	p := Project{Path: ProjectFile(workspace)}
	data, err := readProjectFile(workspace, p.Path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("hooks: %s: %w (move it, or start with --no-project-config)", p.Path, err)
	}
	p.Exists = true
	var f struct {
		Hooks []config.Hook `toml:"hooks"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return p, fmt.Errorf("hooks: %s: %w (fix the file, or start with --no-project-config)", p.Path, err)
	}
	seen := map[string]bool{}
	for i, spec := range f.Hooks {
		h, err := compile(spec, p.Path, i)
		if err != nil {
			return p, fmt.Errorf("hooks: %w", err)
		}
		p.hooks = append(p.hooks, h)
		if !seen[h.Event] {
			seen[h.Event] = true
			p.Events = append(p.Events, h.Event)
		}
	}
	p.sum = projecttrust.Sum(data)
	trusted, err := projecttrust.Read(home)
	if err != nil {
		return p, fmt.Errorf("hooks: %w", err)
	}
	if was, ok := trusted[projecttrust.Canonical(p.Path)]; ok {
		p.Trusted, p.Changed = was == p.sum, was != p.sum
	}
	return p, nil
}

// readProjectFile reads the workspace's hooks.toml at path through the
// confined reader (internal/tools/confine): its links resolved, it must lie
// in the workspace and be no secret, and the bytes come from an open of
// that resolved path through no symbolic link, so a file the model swapped
// for a link after the check is not read (its content would reach the
// person in a parse error, and its hash decides trust).
func readProjectFile(workspace, path string) ([]byte, error) {
	data, _, err := confine.ReadBeneath(workspace, path, 0)
	if errors.Is(err, confine.ErrEscape) {
		return nil, fmt.Errorf("it resolves to %s, outside the workspace, and project hooks are read only from inside it",
			confine.Resolve(path))
	}
	return data, err
}

// Trust records the project's hooks.toml as trusted with its present
// content and starts running its hooks in this session.
func (r *Runner) Trust() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.project
	if !p.Exists || len(p.hooks) == 0 {
		return "", fmt.Errorf("%s does not exist or defines no hooks; there is nothing to trust", p.Path)
	}
	if p.Trusted {
		return fmt.Sprintf("%s is already trusted.", p.Path), nil
	}
	// Trust what the user reviews now: a file edited since the session
	// read it is read again, and that content is recorded.
	fresh, err := loadProject(r.opts.Home, r.opts.Workspace)
	if err != nil {
		return "", err
	}
	if err := projecttrust.Record(r.opts.Home, map[string]string{projecttrust.Canonical(fresh.Path): fresh.sum}); err != nil {
		return "", fmt.Errorf("hooks: %w", err)
	}
	fresh.Trusted, fresh.Changed = true, false
	if !r.project.Trusted && r.opts.Use != All {
		for _, h := range fresh.hooks {
			r.active = append(r.active, &entry{Hook: h})
		}
	}
	r.project = fresh
	return fmt.Sprintf("Trusted %s: its %d hook(s) (%s) run from now on, and in later sessions until the file changes.",
		fresh.Path, len(fresh.hooks), strings.Join(fresh.Events, ", ")), nil
}
