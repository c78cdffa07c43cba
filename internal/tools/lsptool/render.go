package lsptool

import (
	"context"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/codewhale/codewhale/internal/lsp"
	"github.com/codewhale/codewhale/internal/secrets"
)

// maxHover bounds hover text, in characters.
const maxHover = 4000

func (t *Tool) diagnostics(ctx context.Context, a *ask) (string, error) {
	ds, err := t.servers.Diagnostics(ctx, a.target)
	if err != nil {
		return "", err
	}
	path := a.tc.Rel(a.target.Path)
	if len(ds) == 0 {
		return fmt.Sprintf("%s reports no errors or warnings in %s.", t.servers.Server(a.target.Path), path), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s reports %s in %s%s:\n", t.servers.Server(a.target.Path), count(len(ds), "problem"), path, shown(len(ds), a.limit))
	for _, d := range ds[:min(len(ds), a.limit)] {
		b.WriteString(d.String() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// locate is definition and references: one line per place, with the line's
// text when the file lies in the workspace.
func (t *Tool) locate(ctx context.Context, a *ask) (string, error) {
	var locs []lsp.Location
	var err error
	noun := "definition"
	if a.d.Action == "references" {
		noun = "reference"
		decl := a.d.In.IncludeDeclaration || !a.d.Has("include_declaration")
		locs, err = t.servers.References(ctx, a.target, decl)
	} else {
		locs, err = t.servers.Definition(ctx, a.target)
	}
	if err != nil {
		return "", err
	}
	at := fmt.Sprintf("%s:%d:%d", a.tc.Rel(a.target.Path), a.target.Line, a.target.Col)
	if len(locs) == 0 {
		return fmt.Sprintf("%s found no %s for the symbol at %s.", t.servers.Server(a.target.Path), noun, at), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of the symbol at %s%s:\n", capital(count(len(locs), noun)), at, shown(len(locs), a.limit))
	lines := lineCache{a: a}
	for _, l := range locs[:min(len(locs), a.limit)] {
		fmt.Fprintf(&b, "%s:%d:%d", a.tc.Rel(l.Path), l.Line, l.Col)
		if text, ok := lines.get(l.Path, l.Line); ok {
			b.WriteString(": " + clip(strings.TrimSpace(text), 160))
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (t *Tool) hover(ctx context.Context, a *ask) (string, error) {
	text, err := t.servers.Hover(ctx, a.target)
	if err != nil {
		return "", err
	}
	if text == "" {
		return fmt.Sprintf("%s has nothing to say about %s:%d:%d.", t.servers.Server(a.target.Path), a.tc.Rel(a.target.Path),
			a.target.Line, a.target.Col), nil
	}
	return clip(text, maxHover), nil
}

func (t *Tool) symbols(ctx context.Context, a *ask) (string, error) {
	syms, err := t.servers.Symbols(ctx, a.target, a.d.In.Query)
	if err != nil {
		return "", err
	}
	where := a.tc.Rel(a.target.Path)
	if a.d.In.Query != "" {
		where = fmt.Sprintf("the workspace matching %q", a.d.In.Query)
	}
	if len(syms) == 0 {
		return fmt.Sprintf("%s found no symbols in %s.", t.servers.Server(a.target.Path), where), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s%s:\n", capital(count(len(syms), "symbol")), where, shown(len(syms), a.limit))
	for _, s := range syms[:min(len(syms), a.limit)] {
		fmt.Fprintf(&b, "%s:%d:%d %s %s", a.tc.Rel(s.Path), s.Line, s.Col, s.Kind, s.Name)
		if s.Container != "" {
			fmt.Fprintf(&b, " (in %s)", s.Container)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// rename renders the proposed edit as a unified diff per file; files it
// would touch outside the workspace, or secrets, are named and not shown.
func (t *Tool) rename(ctx context.Context, a *ask) (string, error) {
	r, err := t.servers.RenamePreview(ctx, a.target, a.d.In.NewName)
	if err != nil {
		return "", err
	}
	if len(r.Files) == 0 {
		return fmt.Sprintf("%s proposes no edit for renaming the symbol at %s:%d:%d.", t.servers.Server(a.target.Path),
			a.tc.Rel(a.target.Path), a.target.Line, a.target.Col), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Renaming to %q would change %s (nothing was changed; apply it with File patch if it is what you want):\n",
		a.d.In.NewName, count(len(r.Files), "file"))
	for _, f := range r.Files {
		rel := a.tc.Rel(f.Path)
		switch f.Kind {
		case "create", "delete":
			fmt.Fprintf(&b, "%s %s\n", f.Kind, rel)
			continue
		case "rename":
			fmt.Fprintf(&b, "rename %s to %s\n", rel, a.tc.Rel(f.NewPath))
			continue
		}
		b.WriteString(t.fileDiff(a, r, f, rel))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (t *Tool) fileDiff(a *ask, r lsp.Rename, f lsp.FileEdit, rel string) string {
	if _, err := a.tc.ResolvePath(f.Path); err != nil {
		return fmt.Sprintf("edit %s (outside the workspace: not shown)\n", f.Path)
	}
	if _, secret := secrets.IsSecretPath(f.Path); secret {
		return fmt.Sprintf("edit %s (a secret: not shown)\n", rel)
	}
	old, err := readConfined(a.tc, f.Path)
	if err != nil {
		return fmt.Sprintf("edit %s (cannot read it: %v)\n", rel, err)
	}
	updated, err := r.Apply(f, string(old))
	if err != nil {
		return fmt.Sprintf("edit %s (the server's edit cannot be applied: %v)\n", rel, err)
	}
	return udiff.Unified("a/"+rel, "b/"+rel, string(old), updated)
}

// lineCache reads the lines results point at, through the boundary, once
// per file.
type lineCache struct {
	a     *ask
	files map[string][]string
}

func (c *lineCache) get(path string, line int) (string, bool) {
	if c.files == nil {
		c.files = map[string][]string{}
	}
	lines, ok := c.files[path]
	if !ok {
		if _, err := c.a.tc.ResolvePath(path); err == nil {
			if _, secret := secrets.IsSecretPath(path); !secret {
				if data, err := readConfined(c.a.tc, path); err == nil {
					lines = strings.Split(string(data), "\n")
				}
			}
		}
		c.files[path] = lines
	}
	if line < 1 || line > len(lines) {
		return "", false
	}
	return lines[line-1], true
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// shown says how many of n are listed when limit cuts them.
func shown(n, limit int) string {
	if n <= limit {
		return ""
	}
	return fmt.Sprintf(" (the first %d; max_results lists up to %d)", limit, maxMaxResults)
}
