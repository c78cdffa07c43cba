package projectctx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Bounds of skills (CONTRACT.md §17.3).
const (
	// maxSkillHead is how much of a SKILL.md a session start reads: the
	// frontmatter; the body is read when load_skill asks for it.
	maxSkillHead = 8 << 10
	// MaxSkillBody bounds what load_skill returns of a body or a file.
	MaxSkillBody     = 48 << 10
	maxSkillsPerDir  = 200
	maxSkillsListed  = 100
	maxSkillDescLen  = 300
	maxSkillsBlock   = 12 << 10
	maxSkillFiles    = 100
	maxSkillFileDeep = 4
)

// SkillFile is the file that makes a folder a skill.
const SkillFile = "SKILL.md"

// Skill is a folder with a SKILL.md: instructions for one kind of task the
// model loads when a task matches its description.
type Skill struct {
	Name        string
	Description string
	Dir         string // the skill's folder (real path)
	Path        string // its SKILL.md
	Source      string
	area        area
}

// loadSkills reads each source's immediate subfolders; a name found in an
// earlier source shadows later ones, which are reported.
func loadSkills(srcs []source, w *watch) (skills []Skill, problems []string) {
	sh := newShadowing[Skill](func(n string) string { return "skill " + n }, "skills", maxSkillsPerDir)
	for _, src := range srcs {
		entries, err := w.readDir(src.dir)
		if err != nil {
			continue
		}
		sh.next()
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			s, problem, ok := readSkill(src, filepath.Join(src.dir, e.Name()), e.Type()&fs.ModeSymlink != 0, w)
			if ok {
				sh.offer(src.label, s.Name, s.Path, s, problem)
			}
		}
	}
	return sh.admitted, sh.problems
}

// readSkill reads the frontmatter of dir's SKILL.md; ok is false when dir
// is no skill folder at all. linked says dir is a symbolic link.
func readSkill(src source, dir string, linked bool, w *watch) (Skill, string, bool) {
	if linked {
		w.lstat(dir)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return Skill{}, "", false
		}
	}
	path := filepath.Join(dir, SkillFile)
	fi, err := w.lstat(path)
	if err != nil {
		return Skill{}, "", false
	}
	direct := !linked && fi.Mode()&fs.ModeSymlink == 0
	real, why := src.area.admit(path, direct)
	if why != "" {
		return Skill{}, fmt.Sprintf("%s: not read: %s", path, why), true
	}
	head, _, err := readReal(w.files, real, maxSkillHead)
	if err != nil {
		return Skill{}, fmt.Sprintf("%s: not read: %v", path, err), true
	}
	meta, _, ok := splitFrontmatter(string(head))
	if !ok {
		return Skill{}, fmt.Sprintf("%s: no frontmatter with name and description in its first %d KiB", path, maxSkillHead>>10), true
	}
	fm, err := parseFrontmatter(path, meta)
	if err != nil {
		return Skill{}, err.Error(), true
	}
	if fm.Name == "" {
		fm.Name = filepath.Base(dir)
	}
	if !validName(fm.Name) || strings.Contains(fm.Name, ":") {
		return Skill{}, fmt.Sprintf("%s: %q is not a usable skill name (lower-case letters, digits, '-', '_' and '.')", path, fm.Name), true
	}
	if fm.Description == "" {
		return Skill{}, fmt.Sprintf("%s: no description, so the model could not know when to use it", path), true
	}
	return Skill{Name: fm.Name, Description: fm.Description, Dir: filepath.Dir(real), Path: path, Source: src.label,
		area: src.area}, "", true
}

// skillsBlock lists the skills for the system prompt, bounded in count,
// description length and total size — the whole block, its count of what
// is left out and its closing tag included; what is left out is counted.
func skillsBlock(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	const open = "<skills>\nSkills are instructions for particular kinds of task, each in its own folder. When the task " +
		"at hand matches a skill's description, call load_skill with its name before you start; it returns the " +
		"instructions and the files beside them.\n"
	const closing = "</skills>"
	var lines []string
	size := len(open) + len(closing)
	for _, s := range skills {
		desc := s.Description
		if utf8.RuneCountInString(desc) > maxSkillDescLen {
			desc = string([]rune(desc)[:maxSkillDescLen-1]) + "…"
		}
		line := "- " + s.Name + ": " + desc + "\n"
		if len(lines) == maxSkillsListed || size+len(line) > maxSkillsBlock {
			break
		}
		lines = append(lines, line)
		size += len(line)
	}
	more := func() string {
		if n := len(skills) - len(lines); n > 0 {
			return fmt.Sprintf("(%d more skills are not listed here; load_skill with an unknown name lists every name.)\n", n)
		}
		return ""
	}
	// The count of those left out needs room too: give it the last lines'.
	for len(lines) > 0 && size+len(more()) > maxSkillsBlock {
		size -= len(lines[len(lines)-1])
		lines = lines[:len(lines)-1]
	}
	return open + strings.Join(lines, "") + more() + closing
}

// SkillContent is what load_skill returns.
type SkillContent struct {
	Body  string   // SKILL.md without its frontmatter, bounded
	Cut   string   // receipt when the body was cut
	Files []string // other files in the folder, relative, sorted, bounded
	More  int      // files beyond the listed ones
}

// Content reads the skill's body and lists the files beside it.
func (s *Skill) Content() (SkillContent, error) {
	real, why := s.area.admit(s.Path, false)
	if why != "" {
		return SkillContent{}, fmt.Errorf("skill %s (%s) is not readable: %s", s.Name, s.Path, why)
	}
	data, fi, err := readReal(nil, real, maxSkillHead+MaxSkillBody)
	if err != nil {
		return SkillContent{}, fmt.Errorf("reading skill %s (%s): %w", s.Name, s.Path, err)
	}
	size := fi.Size()
	_, body, _ := splitFrontmatter(string(data))
	c := SkillContent{Body: strings.TrimSpace(body)}
	if kept := cutText([]byte(c.Body), MaxSkillBody); len(kept) < len(c.Body) || size > int64(len(data)) {
		c.Body = string(kept)
		c.Cut = fmt.Sprintf("[codewhale: the skill's instructions were cut at %d bytes; %s holds the whole text]", len(kept), s.Path)
	}
	c.Files, c.More = s.listFiles()
	return c, nil
}

// listFiles walks the skill folder (bounded depth and count), skipping
// hidden entries and SKILL.md itself. The folder is listed through the
// confined reader rooted at it, so a subfolder swapped for a link while
// the walk runs is not listed through the link.
func (s *Skill) listFiles() ([]string, int) {
	files := confine.NewSet(s.Dir)
	defer files.Close()
	var out []string
	more := 0
	var walk func(dir, rel string, depth int)
	walk = func(dir, rel string, depth int) {
		entries, err := files.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := path.Join(rel, name)
			if e.IsDir() {
				if depth < maxSkillFileDeep {
					walk(filepath.Join(dir, name), p, depth+1)
				}
				continue
			}
			if p == SkillFile {
				continue
			}
			if len(out) == maxSkillFiles {
				more++
				continue
			}
			out = append(out, p)
		}
	}
	walk(s.Dir, "", 1)
	sort.Strings(out)
	return out, more
}

// ReadFile returns a file beside the skill's SKILL.md, bounded. The name
// must stay inside the skill's folder once links are resolved, and must
// not be a secret.
func (s *Skill) ReadFile(name string) (text string, cut string, err error) {
	if name == "" || filepath.IsAbs(name) {
		return "", "", fmt.Errorf("file must be a path relative to the skill's folder, as load_skill lists them")
	}
	p := filepath.Join(s.Dir, filepath.FromSlash(name))
	if !within(p, s.Dir) {
		return "", "", fmt.Errorf("file %q is outside the skill's folder", name)
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("skill %s has no file %q; call load_skill with only the name to list its files", s.Name, name)
	} else if err != nil {
		return "", "", err
	}
	// The user's home folders may link anywhere (area), but the name comes
	// from the model: what it opens must lie inside the skill's folder
	// wherever the skill came from.
	real, why := area{root: s.Dir, home: s.area.home}.admit(p, false)
	if why == "" && !within(real, s.Dir) {
		why = "it resolves to " + real + ", outside " + s.Dir
	}
	if why != "" {
		return "", "", fmt.Errorf("file %q of skill %s is not readable: %s", name, s.Name, why)
	}
	data, fi, err := readReal(nil, real, MaxSkillBody+1)
	if err != nil {
		return "", "", fmt.Errorf("reading %s: %w", p, err)
	}
	size := fi.Size()
	kept := cutText(data, MaxSkillBody)
	if int64(len(kept)) < size {
		cut = fmt.Sprintf("[codewhale: %s was cut at %d of %d bytes]", p, len(kept), size)
	}
	if !utf8.Valid(kept) || bytes.IndexByte(kept, 0) >= 0 {
		return "", "", fmt.Errorf("file %q of skill %s is binary; only text files can be returned", name, s.Name)
	}
	return string(kept), cut, nil
}
