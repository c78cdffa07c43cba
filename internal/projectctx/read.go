package projectctx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// area is a tree whose files may shape the agent: the repository (or the
// workspace outside a repository), or a folder of the user's CodeWhale
// home. A file is read only when its real location, symbolic links
// resolved, lies inside its area and is no secret — a repository's
// AGENTS.md that links to ~/.ssh/id_ed25519 must not carry the key into
// the system prompt.
//
// The user's own folders are not confined: a commands folder linked to a
// dotfiles repository is the user's choice. Secrets stay out everywhere.
type area struct {
	root string // canonical
	home string // the canonical CodeWhale home when root is in it, else ""
}

// canonical resolves dir's symbolic links (the deepest existing
// ancestor's for a path that does not exist).
func canonical(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	if parent := filepath.Dir(dir); parent != dir {
		return filepath.Join(canonical(parent), filepath.Base(dir))
	}
	return dir
}

// under is base/parts with base canonical: each part is looked at once and
// resolved only when it is a symbolic link, so a deep workspace is not
// walked again for every folder the session reads.
func under(base string, parts ...string) string {
	p := base
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return filepath.Join(append([]string{p}, parts[i+1:]...)...)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return canonical(filepath.Join(append([]string{p}, parts[i+1:]...)...))
		}
	}
	return p
}

// projectArea is the repository (or workspace) at dir, canonical.
func projectArea(dir string) area { return area{root: dir} }

// homeArea is sub (a folder name, or "" for the home itself) of the
// canonical CodeWhale home.
func homeArea(home, sub string) area { return area{root: filepath.Join(home, sub), home: home} }

// admit resolves path and says why its content may not be used ("" when it
// may). direct says path is no symbolic link and its folder is canonical:
// then path is its own real location and nothing needs resolving — the
// common case, kept cheap because a session start reads every file this
// way.
func (a area) admit(path string, direct bool) (real string, refused string) {
	real = path
	if !direct {
		var err error
		if real, err = filepath.EvalSymlinks(path); err != nil {
			return "", "cannot resolve it: " + err.Error()
		}
	}
	if a.home == "" && !within(real, a.root) {
		return real, "it resolves to " + real + ", outside " + a.root
	}
	reason, secret := secrets.IsSecretPath(real)
	if !secret {
		return real, ""
	}
	// The home is secret as a whole (config, credential store, sessions);
	// its instructions, commands and skills are Markdown the user keeps
	// there for this purpose.
	if a.home != "" && reason == secrets.ReasonHome && within(real, a.root) && !within(real, filepath.Join(a.home, "secrets")) &&
		(a.root != a.home || filepath.Dir(real) == a.home && strings.EqualFold(filepath.Ext(real), ".md")) {
		return real, ""
	}
	return real, "it is a secret location (" + reason + ")"
}

func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readReal returns at most limit bytes of the regular file real (a path
// admit returned: canonical, inside its area, no secret) through the
// confined reader (internal/tools/confine): opened beneath the file
// system's root through no symbolic link, so the open takes exactly the
// path admit checked, and a name swapped for a link after the check fails
// here instead of reading what it leads to. files is the load's reader (its
// root opened once per load); nil opens one for this read. fi comes from
// the open file, so a caller that knows path is no link can record it
// without another look.
func readReal(files *confine.Set, real string, limit int) ([]byte, fs.FileInfo, error) {
	if files == nil {
		files = confine.NewSet(fsRoot(real))
		defer files.Close()
	}
	data, fi, err := files.ReadFile(real, int64(limit))
	if errors.Is(err, confine.ErrNotRegular) {
		err = confine.ErrNotRegular
	}
	return data, fi, err
}

// fsRoot is the root of the file system (the volume, on Windows) that
// holds p.
func fsRoot(p string) string { return filepath.VolumeName(p) + string(filepath.Separator) }

// cutText shortens text to at most limit bytes on a UTF-8 boundary,
// preferring the end of a line within the last quarter.
func cutText(text []byte, limit int) []byte {
	if len(text) <= limit {
		return text
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if nl := bytes.LastIndexByte(text[:cut], '\n'); nl >= cut*3/4 {
		cut = nl + 1
	}
	return text[:cut]
}

// splitFrontmatter separates a leading YAML block fenced by "---" lines
// from the body. ok is false when the text has no frontmatter.
func splitFrontmatter(text string) (meta, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, "\r \t") != "---" {
		return "", text, false
	}
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, "\r \t") == "---" {
			end := off + len(line)
			if end < len(rest) {
				end++
			}
			return rest[:off], rest[end:], true
		}
		off += len(line) + 1
	}
	return "", text, false
}

// frontmatter is the metadata commands, skills and sub-agent definitions
// may declare.
type frontmatter struct {
	Name         string `yaml:"name"`
	Description  string `yaml:"description"`
	ArgumentHint string `yaml:"argument-hint"`
	Model        string `yaml:"model"`
	Mode         string `yaml:"mode"`
	AllowedTools any    `yaml:"allowed-tools"`
	// Sub-agent definitions (agents.go): Claude Code's tools and
	// permissionMode, and reasoning_effort.
	Tools           any    `yaml:"tools"`
	ReasoningEffort string `yaml:"reasoning_effort"`
	PermissionMode  string `yaml:"permissionMode"`
}

// parseFrontmatter decodes meta; the error names the file and line.
func parseFrontmatter(path, meta string) (frontmatter, error) {
	var fm frontmatter
	if strings.TrimSpace(meta) == "" {
		return fm, nil
	}
	if plain, ok := plainFrontmatter(meta); ok {
		fm = plain
	} else if err := yaml.Unmarshal([]byte(meta), &fm); err != nil {
		return fm, fmt.Errorf("%s: frontmatter: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	fm.Name, fm.Description = strings.TrimSpace(fm.Name), oneLine(fm.Description)
	fm.ArgumentHint, fm.Model, fm.Mode = oneLine(fm.ArgumentHint), strings.TrimSpace(fm.Model), strings.TrimSpace(fm.Mode)
	fm.ReasoningEffort, fm.PermissionMode = strings.TrimSpace(fm.ReasoningEffort), strings.TrimSpace(fm.PermissionMode)
	return fm, nil
}

// plainFrontmatter reads the common case — one `key: value` per line with
// plain scalar values — without a YAML parser, whose set-up per document
// would be most of a session start that reads a hundred of them
// (CONTRACT.md §17.5). ok is false for anything else (quotes, lists, block
// scalars, comments, anchors), which goes to the YAML parser.
func plainFrontmatter(meta string) (frontmatter, bool) {
	var fm frontmatter
	for _, line := range strings.Split(meta, "\n") {
		line = strings.TrimRight(line, "\r \t")
		if line == "" {
			continue
		}
		key, value, found := strings.Cut(line, ":")
		if !found || key != strings.TrimSpace(key) || strings.ContainsAny(key, " \t#'\"") {
			return fm, false
		}
		value = strings.TrimSpace(value)
		if value == "" || strings.ContainsAny(value[:1], "'\"[]{}|>&*!%@#`-?,") || strings.Contains(value, ": ") ||
			strings.Contains(value, " #") {
			return fm, false
		}
		switch key {
		case "name":
			fm.Name = value
		case "description":
			fm.Description = value
		case "argument-hint":
			fm.ArgumentHint = value
		case "model":
			fm.Model = value
		case "mode":
			fm.Mode = value
		case "allowed-tools":
			fm.AllowedTools = value
		case "tools":
			fm.Tools = value
		case "reasoning_effort":
			fm.ReasoningEffort = value
		case "permissionMode":
			fm.PermissionMode = value
		}
	}
	return fm, true
}

// toolList reads allowed-tools: a YAML list, or one string of names
// separated by commas or spaces. Claude Code's argument patterns
// ("Bash(git add:*)") keep their parentheses so the caller can report them.
func toolList(v any) []string {
	var raw []string
	switch x := v.(type) {
	case string:
		raw = splitTools(x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				raw = append(raw, splitTools(s)...)
			}
		}
	}
	return raw
}

func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth = max(depth-1, 0)
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
