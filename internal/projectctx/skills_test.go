package projectctx

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func skill(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nSteps for " + name + ".\n"
}

// Skills come from the project's .codewhale/skills, then .claude/skills,
// then the user's home, each marked with its source; a name found earlier
// shadows a later one, which is reported.
// CONTRACT.md §17.3: skills from the three folders with commands' precedence, a later skill of the same name
// shadowed.
// README.md "User commands and skills": skills are folders with SKILL.md in .codewhale/skills, .claude/skills and the home's skills
func TestSkillsFromEverySourceWithShadowing(t *testing.T) {
	t.Parallel()
	home := canonical(t.TempDir())
	write(t, home, map[string]string{
		"skills/release/SKILL.md": skill("release", "the user's release, shadowed"),
		"skills/notes/SKILL.md":   skill("notes", "Write release notes"),
	})
	ws := repo(t, map[string]string{
		".codewhale/skills/release/SKILL.md": skill("release", "Cut a release"),
		".claude/skills/pdf/SKILL.md":        skill("pdf", "Read PDF files"),
		".claude/skills/dup/SKILL.md":        skill("release", "a Claude release, shadowed"),
	})
	s := Load(Options{Home: home, Workspace: ws}).State()
	var got []string
	for _, sk := range s.Skills {
		got = append(got, sk.Name+"="+sk.Source)
	}
	want := "release=project .codewhale/skills|pdf=project .claude/skills|notes=user $CODEWHALE_HOME/skills"
	if strings.Join(got, "|") != want {
		t.Fatalf("skills:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	problems := strings.Join(s.Problems, "\n")
	for _, shadowed := range []string{filepath.Join(ws, ".claude", "skills", "dup", "SKILL.md"), filepath.Join(home, "skills", "release", "SKILL.md")} {
		if !strings.Contains(problems, "skill release in "+shadowed+" is shadowed by the one in "+filepath.Join(ws, ".codewhale", "skills", "release", "SKILL.md")) {
			t.Errorf("no shadowing report for %s:\n%s", shadowed, problems)
		}
	}
	block := s.PromptBlock()
	if !strings.Contains(block, "- release: Cut a release\n") || strings.Contains(block, "shadowed") {
		t.Errorf("skills block:\n%s", block)
	}
}

// The prompt lists at most 100 skills, each description cut at 300
// characters, and counts the rest.
// CONTRACT.md §17.3: the <skills> block lists at most 100, descriptions cut at 300 characters, 12 KiB in all, with a
// count of the rest.
// README.md "User commands and skills": at most 100 skills listed, descriptions cut at 300 characters
func TestSkillsBlockIsBounded(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf(".codewhale/skills/s%03d/SKILL.md", i)] = skill(fmt.Sprintf("s%03d", i), "ø"+strings.Repeat("d", 400))
	}
	ws := repo(t, files)
	block := Load(Options{Workspace: ws}).State().PromptBlock()
	start := strings.Index(block, "<skills>")
	if start < 0 {
		t.Fatalf("no skills block:\n%.400s", block)
	}
	skills := block[start:]
	lines := strings.Count(skills, "\n- s")
	if lines > maxSkillsListed || !strings.Contains(skills, fmt.Sprintf("(%d more skills are not listed here", 120-lines)) {
		t.Errorf("%d skills listed; block tail:\n%s", lines, skills[max(0, len(skills)-300):])
	}
	if len(skills) > maxSkillsBlock+512 {
		t.Errorf("the skills block is %d bytes", len(skills))
	}
	first := strings.SplitN(skills[strings.Index(skills, "- s000"):], "\n", 2)[0]
	if desc := strings.TrimPrefix(first, "- s000: "); len([]rune(desc)) != maxSkillDescLen || !strings.HasSuffix(desc, "…") {
		t.Errorf("description is %d characters: %q", len([]rune(desc)), desc)
	}
}

// The user's own folders may link anywhere (a dotfiles repository): their
// commands and skills load through the link, read at the path it resolves
// to.
func TestHomeFoldersLinkedToDotfilesLoad(t *testing.T) {
	t.Parallel()
	home, dots := canonical(t.TempDir()), canonical(t.TempDir())
	write(t, dots, map[string]string{"commands/ship.md": "ship it\n", "skills/notes/SKILL.md": skill("notes", "Write notes")})
	mustLink(t, filepath.Join(dots, "commands"), filepath.Join(home, "commands"))
	mustLink(t, filepath.Join(dots, "skills"), filepath.Join(home, "skills"))
	s := Load(Options{Home: home, Workspace: canonical(t.TempDir())}).State()
	if _, ok := s.Command("ship"); !ok {
		t.Errorf("the linked commands folder was not read: %v", s.Problems)
	}
	if _, ok := s.Skill("notes"); !ok {
		t.Errorf("the linked skills folder was not read: %v", s.Problems)
	}
}
