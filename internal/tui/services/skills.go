package services

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Skills is /skills [name]: the skills with their descriptions and
// sources, or one skill's folder and files.
func (sv *Services) Skills(host Host, arg string) tea.Cmd {
	if sv.c.Project == nil {
		host.System("No skills in this session.")
		return nil
	}
	st := sv.c.Project.State()
	if name := strings.TrimSpace(arg); name != "" {
		sk, ok := st.Skill(name)
		if !ok {
			host.SystemError(fmt.Sprintf("No skill named %q. Skills: %s", name, orNone(st.SkillNames())))
			return nil
		}
		c, err := sk.Content()
		if err != nil {
			host.SystemError(err.Error())
			return nil
		}
		size := fmt.Sprintf("%d bytes", len(c.Body))
		if c.Cut != "" {
			size += " (cut)"
		}
		host.System(fmt.Sprintf("Skill %s — %s\nSource: %s (%s)\nInstructions: %s\nFiles: %s", sk.Name, sk.Description,
			sk.Source, sk.Path, size, orNone(c.Files)))
		return nil
	}
	var b strings.Builder
	if len(st.Skills) == 0 {
		b.WriteString("No skills. A skill is a folder with a SKILL.md (frontmatter name and description) in " +
			".codewhale/skills/, .claude/skills/ or $CODEWHALE_HOME/skills/.")
	} else {
		fmt.Fprintf(&b, "Skills (%d; the model loads one with load_skill when a task matches):", len(st.Skills))
		for _, sk := range st.Skills {
			fmt.Fprintf(&b, "\n  %s — %s\n    %s · %s", sk.Name, sk.Description, sk.Source, sk.Path)
		}
	}
	for _, p := range st.Problems {
		if strings.Contains(p, "SKILL.md") || strings.HasPrefix(p, "skill ") {
			b.WriteString("\nProblem: " + p)
		}
	}
	host.System(b.String())
	return nil
}
