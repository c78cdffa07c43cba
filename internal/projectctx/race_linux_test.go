package projectctx

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale/codewhale/internal/testutil/swaprig"
)

// loadRounds is how many session starts each race test makes (the issue's
// repro put ~/.aws/credentials into the system prompt in 4 of 60).
const loadRounds = 300

// outsideCredentials is a stand-in for ~/.aws/credentials outside the
// repository, under the names the loader looks for.
func outsideCredentials(t *testing.T, names ...string) string {
	t.Helper()
	dir := filepath.Join(canonical(t.TempDir()), ".aws")
	for _, n := range append(names, "credentials") {
		write(t, dir, map[string]string{n: "[default]\naws_secret_access_key = CANARY-outside\n"})
	}
	return dir
}

// raceLoads loads the session loadRounds times (and on, see Rig.More)
// while r swaps, and fails on any load whose prompt
// or commands carry the outside canary.
func raceLoads(t *testing.T, ws string, r *swaprig.Rig, seen func(*State) bool) {
	t.Helper()
	ok := 0
	for i := 0; r.More(i, loadRounds, ok); i++ {
		s := Load(Options{Workspace: ws}).State()
		text := s.PromptBlock()
		for _, c := range s.Commands {
			text += c.Expand("")
		}
		if strings.Contains(text, "CANARY") {
			t.Fatalf("load %d read the outside file:\n%s", i, text)
		}
		if seen(s) {
			ok++
		}
	}
	r.Stop()
	if ok == 0 {
		t.Fatal("no load read the inside file: the rig proves nothing")
	}
	t.Logf("%d loads read the inside file, %d swaps, 0 outside", ok, r.Swaps())
}

func promptHas(text string) func(*State) bool {
	return func(s *State) bool { return strings.Contains(s.PromptBlock(), text) }
}

// AGENTS.md itself swapped for a link to the credentials.
// CONTRACT.md §17.1: a file swapped for a link after the check is never read through it.
func TestRaceInstructionsNeverCarryASwappedInFile(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{"AGENTS.md": "inside rule\n"})
	creds := filepath.Join(outsideCredentials(t), "credentials")
	raceLoads(t, ws, swaprig.Start(t, filepath.Join(ws, "AGENTS.md"), creds), promptHas("inside rule"))
}

// .codewhale swapped for a link to a directory holding instructions.md.
func TestRaceInstructionsNeverReadThroughASwappedDirectory(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".codewhale/instructions.md": "inside rule\n"})
	outside := outsideCredentials(t, "instructions.md")
	raceLoads(t, ws, swaprig.Start(t, filepath.Join(ws, ".codewhale"), outside), promptHas("inside rule"))
}

// A command file swapped for a link to the credentials.
func TestRaceCommandsNeverCarryASwappedInFile(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".codewhale/commands/ship.md": "inside command\n"})
	creds := filepath.Join(outsideCredentials(t), "credentials")
	raceLoads(t, ws, swaprig.Start(t, filepath.Join(ws, ".codewhale", "commands", "ship.md"), creds),
		func(s *State) bool {
			c, ok := s.Command("ship")
			return ok && strings.Contains(c.Expand(""), "inside command")
		})
}

// A skill's SKILL.md swapped for a link to an outside SKILL.md.
func TestRaceSkillsNeverListASwappedInFile(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".codewhale/skills/s/SKILL.md": skill("s", "inside skill")})
	outside := filepath.Join(canonical(t.TempDir()), "SKILL.md")
	write(t, filepath.Dir(outside), map[string]string{"SKILL.md": skill("s", "CANARY outside skill")})
	raceLoads(t, ws, swaprig.Start(t, filepath.Join(ws, ".codewhale", "skills", "s", "SKILL.md"), outside),
		promptHas("inside skill"))
}

// load_skill's file read through a directory of the skill swapped for a
// link to an outside directory with a file of the same name.
func TestRaceSkillFileNeverReadsThroughASwappedDirectory(t *testing.T) {
	t.Parallel()
	ws := repo(t, map[string]string{".codewhale/skills/s/SKILL.md": skill("s", "a skill"),
		".codewhale/skills/s/ref/credentials": "inside ref\n"})
	sk, found := Load(Options{Workspace: ws}).State().Skill("s")
	if !found {
		t.Fatal("the skill did not load")
	}
	r := swaprig.Start(t, filepath.Join(ws, ".codewhale", "skills", "s", "ref"), outsideCredentials(t))
	ok := 0
	for i := 0; r.More(i, loadRounds, ok); i++ {
		text, _, err := sk.ReadFile("ref/credentials")
		switch {
		case strings.Contains(text, "CANARY"):
			t.Fatalf("load_skill read the outside file: %q", text)
		case err == nil:
			ok++
		}
	}
	r.Stop()
	if ok == 0 {
		t.Fatal("no read succeeded: the rig proves nothing")
	}
	t.Logf("%d reads inside, %d swaps, 0 outside", ok, r.Swaps())
}
