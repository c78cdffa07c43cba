package projectctx

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/gitrepo"
	"github.com/codewhale/codewhale/internal/lazyre"
)

// Bounds of the project instructions (CONTRACT.md §17.1).
const (
	MaxInstructionBytes      = 32 << 10 // one file
	MaxInstructionTotalBytes = 64 << 10 // all files together
	maxMentions              = 20
	// minInstructionCut is the least room worth cutting a file into; with
	// less left the file is skipped rather than reduced to a fragment.
	minInstructionCut = 512
)

// InstructionNames are the files a folder's instructions are read from, in
// order: the first that exists is used, so CLAUDE.md and the
// .codewhale/.claude instruction files count only where a folder has no
// AGENTS.md.
var InstructionNames = []string{"AGENTS.md", "CLAUDE.md", filepath.Join(".codewhale", "instructions.md"),
	filepath.Join(".claude", "instructions.md")}

// Instruction is one instructions file as the session loaded it.
type Instruction struct {
	Path  string // as found (absolute)
	Scope string // "global", "repository root" or the folder relative to it
	Size  int64  // bytes on disk
	Kept  int    // bytes that reached the prompt
	// Cut is the truncation receipt when the file did not fit ("" = whole);
	// Skipped says why a file that exists was not used at all.
	Cut, Skipped string
	// Mentions are @path references in the text; they are not expanded.
	Mentions []string
	text     string
}

// instructionDirs are the folders whose instructions apply to workspace:
// from the repository root (the nearest ancestor with a .git entry) down to
// the workspace itself; just the workspace outside a repository.
func instructionDirs(ws string) (root string, dirs []string) {
	if root = gitrepo.Top(ws, ""); root == "" {
		return ws, []string{ws}
	}
	for d := ws; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return root, dirs
}

// loadInstructions reads the global file, then one file per folder from
// the repository root down, within the per-file and total bounds. home and
// ws are canonical. Every path it consulted goes into w so a change between
// turns is noticed: the candidates up to the first that exists (a
// fallback behind an existing AGENTS.md cannot matter).
func loadInstructions(home, ws string, w *watch) (root string, out []Instruction) {
	budget := MaxInstructionTotalBytes
	if home != "" {
		ha := homeArea(home, "")
		if in, ok := readInstruction(filepath.Join(ha.root, "AGENTS.md"), "global", ha, true, &budget, w); ok {
			out = append(out, in)
		}
	}
	root, dirs := instructionDirs(ws)
	ar := projectArea(root)
	top := "repository root"
	if !gitrepo.IsTop(root) {
		top = "workspace"
	}
	for _, d := range dirs {
		scope := top
		if rel, err := filepath.Rel(root, d); err == nil && rel != "." {
			scope = filepath.ToSlash(rel)
		}
		for _, name := range InstructionNames {
			if in, ok := readInstruction(filepath.Join(d, name), scope, ar, !strings.ContainsRune(name, filepath.Separator), &budget, w); ok {
				out = append(out, in)
				break
			}
		}
	}
	return root, out
}

// readInstruction loads one candidate; ok is false when it does not exist.
// direct says path's folder is canonical (the chain's folders are; a
// candidate inside .codewhale/ or .claude/ may sit below a linked folder).
func readInstruction(path, scope string, ar area, direct bool, budget *int, w *watch) (Instruction, bool) {
	st, err := w.lstat(path)
	if err != nil || st.IsDir() {
		return Instruction{}, false
	}
	in := Instruction{Path: path, Scope: scope, Size: st.Size()}
	real, why := ar.admit(path, direct && st.Mode()&fs.ModeSymlink == 0)
	if why != "" {
		in.Skipped = "not read: " + why
		return in, true
	}
	limit := min(MaxInstructionBytes, *budget)
	if limit < minInstructionCut {
		in.Skipped = fmt.Sprintf("not read: the %d KiB total for project instructions was used by the files above",
			MaxInstructionTotalBytes>>10)
		return in, true
	}
	data, fi, err := readReal(w.files, real, limit+1)
	if err != nil {
		in.Skipped = "not read: " + err.Error()
		return in, true
	}
	size := fi.Size()
	in.Size = size
	kept := cutText(data, limit)
	if int64(len(kept)) < size {
		which := fmt.Sprintf("the %d KiB limit per file", MaxInstructionBytes>>10)
		if limit < MaxInstructionBytes {
			which = fmt.Sprintf("the %d KiB total for project instructions", MaxInstructionTotalBytes>>10)
		}
		in.Cut = cutReceipt(path, len(kept), size, which)
	}
	in.text, in.Kept = string(kept), len(kept)
	in.Mentions = mentions(in.text)
	*budget -= len(kept)
	return in, true
}

// cutReceipt is the line that ends an instructions file cut to kept of its
// size bytes by the bound which (CONTRACT.md §17.1, exact).
func cutReceipt(path string, kept int, size int64, which string) string {
	return fmt.Sprintf("[codewhale: %s was cut here at %d of %d bytes (%s); read the rest with File read if you need it]",
		path, kept, size, which)
}

// mentionPattern is an @path reference as other agents expand them: @ at a
// word start, then a path with a dot or a slash (so @user handles and
// e-mail addresses do not count).
var mentionPattern = lazyre.New(`(?:^|[\s(\[])@([\w.~-]*[./][\w./~-]*\w)`)

func mentions(text string) []string {
	if !strings.Contains(text, "@") {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern().FindAllStringSubmatch(text, -1) {
		if p := m[1]; !seen[p] && len(out) < maxMentions {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// instructionsBlock renders the loaded files as the system prompt's
// project-instructions block: the same bytes for the same files, so the
// provider's prefix cache holds across steps.
func instructionsBlock(ins []Instruction) string {
	var b strings.Builder
	for _, in := range ins {
		if in.Skipped != "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("<project_instructions>\n")
			b.WriteString("Instructions for agents working here, from the user's CodeWhale home and from the repository, " +
				"outermost first; a deeper folder's file refines the ones above it. Follow them unless they conflict with " +
				"the rules above or with what the user asks. @path mentions in them are not expanded: read a mentioned " +
				"file with File when you need it.\n")
		}
		fmt.Fprintf(&b, "\n<instructions_file path=%q scope=%q>\n", in.Path, in.Scope)
		b.WriteString(strings.TrimRight(in.text, "\n"))
		b.WriteString("\n")
		if in.Cut != "" {
			b.WriteString(in.Cut + "\n")
		}
		b.WriteString("</instructions_file>\n")
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("</project_instructions>")
	return b.String()
}
