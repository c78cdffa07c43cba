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

	"github.com/aymanbagabas/go-udiff"

	"github.com/codewhale/codewhale/internal/atomicfile"
	"github.com/codewhale/codewhale/internal/secrets"
)

// The markers the model puts around the file it proposes. Tags, not a
// Markdown fence: an AGENTS.md holds code fences of its own.
const (
	proposalOpen  = "<AGENTS.md>"
	proposalClose = "</AGENTS.md>"
)

// maxProposal bounds what /init writes: the per-file bound the file will
// be read with (a longer file would be cut the next time it is loaded).
const maxProposal = MaxInstructionBytes

// InitDraft is what /init and `codewhale init` work on (CONTRACT.md
// §17.6): where AGENTS.md goes, what is there now, and the prompt of the
// survey turn. The model only proposes; the host writes the file, and
// only after a person has seen the diff and said yes.
type InitDraft struct {
	Path string // <workspace>/AGENTS.md, as the user knows it
	// Target is where the file is written: Path, or the file it links to
	// inside the repository.
	Target string
	// Base is the text the proposal improves: the workspace's AGENTS.md, or
	// its fallback (CLAUDE.md, …) when there is no AGENTS.md; "" for none.
	// With Force the model is told to write afresh instead.
	Base, BasePath string
	Force          bool
	Prompt         string
	seen           []byte // Target's content when Diff ran (nil: no file)
	baseCut        string // the receipt when Base is only the first part of the file
}

// NewInitDraft prepares /init for workspace; force asks for a fresh file
// instead of an improved one. The existing files are read under the rules
// the instructions load follows: a link out of the repository or to a
// secret is not followed, and AGENTS.md is never written through a link
// to a protected path (.git/hooks/…).
func NewInitDraft(workspace string, force bool) (*InitDraft, error) {
	ws := canonical(workspace)
	root, _ := instructionDirs(ws)
	ar := projectArea(root)
	d := &InitDraft{Path: filepath.Join(ws, "AGENTS.md"), Force: force}
	target, err := initTarget(d.Path, ws, ar)
	if err != nil {
		return nil, err
	}
	d.Target = target
	for _, name := range InstructionNames {
		p := filepath.Join(ws, name)
		st, err := os.Lstat(p)
		if err != nil || st.IsDir() {
			continue
		}
		real, why := ar.admit(p, false)
		if why != "" {
			return nil, fmt.Errorf("%s is not read: %s; move it or run /init --force for a fresh AGENTS.md", p, why)
		}
		data, fi, err := readReal(nil, real, MaxInstructionBytes+1)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		kept := cutText(data, MaxInstructionBytes)
		if int64(len(kept)) < fi.Size() { // cut as the instructions load cuts it, and the model told so
			d.baseCut = cutReceipt(p, len(kept), fi.Size(), fmt.Sprintf("the %d KiB limit per file", MaxInstructionBytes>>10))
		}
		d.Base, d.BasePath = string(kept), p
		break
	}
	d.Prompt = d.prompt()
	return d, nil
}

// initTarget is where AGENTS.md at path is written: path itself, or the
// file its link resolves to when that lies in the repository, is no secret
// and is no protected path.
func initTarget(path, ws string, ar area) (string, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", fmt.Errorf("looking at %s: %w", path, err)
	case st.IsDir():
		return "", fmt.Errorf("%s is a folder; /init writes a file there, so move it first", path)
	case st.Mode()&fs.ModeSymlink == 0:
		return path, nil
	}
	real, why := ar.admit(path, false)
	if why != "" {
		return "", fmt.Errorf("%s is a link that /init does not follow: %s", path, why)
	}
	if reason, ok := secrets.ProtectedWrite(real, ws); ok {
		return "", fmt.Errorf("%s links to %s, a protected path (%s); /init does not write there", path, real, reason)
	}
	return real, nil
}

func (d *InitDraft) prompt() string {
	var b strings.Builder
	b.WriteString("Survey this repository with your read-only tools and write an AGENTS.md for the agents (and people) " +
		"who work in it. Read the build files, the CI configuration, the README and a sample of the code first; do not " +
		"guess. Cover: how to build, test and lint (the exact commands, and how to run one test); the layout (which " +
		"folder holds what); the conventions the code follows (style, error handling, tests, commit messages) and the " +
		"rules a change must keep. Be concise and concrete: short sections, commands in code blocks, no marketing, " +
		fmt.Sprintf("at most %d KiB.\n\n", maxProposal>>10))
	switch {
	case d.Base != "" && d.Force:
		fmt.Fprintf(&b, "%s exists, but write the file afresh from what you find; do not start from it.\n\n", d.BasePath)
	case d.Base != "":
		fmt.Fprintf(&b, "%s already exists; improve it rather than replace it: keep what is still right, correct what "+
			"is wrong or stale, add what is missing, and keep the maintainers' own rules unless the repository "+
			"contradicts them. Its current text:\n\n%s\n%s\n%s\n\n", d.BasePath, proposalOpen, strings.TrimRight(d.Base, "\n"), proposalClose)
		if d.baseCut != "" {
			b.WriteString(d.baseCut + "\n\n")
		}
	}
	fmt.Fprintf(&b, "End your answer with the complete file, exactly as it should be written, between a line %s and a "+
		"line %s. The user sees the change as a diff and decides whether to write it.", proposalOpen, proposalClose)
	return b.String()
}

// Proposal reads the file the model proposed from its final answer: the
// text between the last proposal markers.
func (d *InitDraft) Proposal(reply string) (string, error) {
	end := strings.LastIndex(reply, proposalClose)
	if end < 0 {
		return "", fmt.Errorf("the answer has no %s … %s block, so there is nothing to write; run /init again", proposalOpen, proposalClose)
	}
	start := strings.LastIndex(reply[:end], proposalOpen)
	if start < 0 {
		return "", fmt.Errorf("the answer closes %s without opening it; run /init again", proposalClose)
	}
	body := strings.Trim(reply[start+len(proposalOpen):end], "\r\n")
	if strings.TrimSpace(body) == "" {
		return "", errors.New("the proposed AGENTS.md is empty; nothing to write")
	}
	body += "\n"
	if bad := hiddenControl(body); bad != "" {
		return "", fmt.Errorf("the proposed AGENTS.md contains %s, which a diff on screen would not show; nothing to write; run /init again", bad)
	}
	if len(body) > maxProposal {
		return "", fmt.Errorf("the proposed AGENTS.md is %d bytes, more than the %d KiB an instructions file keeps; run /init again",
			len(body), maxProposal>>10)
	}
	return body, nil
}

// hiddenControl names what in text a terminal would not show as it is:
// invalid UTF-8, escape sequences and other control characters (tab,
// newline and a CR that ends a line are text; a CR inside a line returns
// the cursor, so what follows it is drawn over what precedes it), the
// bidirectional overrides that make a line read differently from its
// bytes, and the Unicode tag characters, which a terminal draws as nothing
// while a model reads them as ASCII. "" when there is none. The person
// approves the diff they see, so the file must be exactly that.
func hiddenControl(text string) string {
	if !utf8.ValidString(text) {
		return "bytes that are not UTF-8"
	}
	for i, r := range text {
		switch {
		case r == '\t' || r == '\n':
		case r == '\r':
			if !strings.HasPrefix(text[i+1:], "\n") {
				return "a carriage return inside a line (CR without LF), which draws the rest of the line over its start"
			}
		case r >= 0xe0000 && r <= 0xe007f:
			return fmt.Sprintf("a Unicode tag character (U+%04X), which a terminal does not show", r)
		case r == 0x1b:
			return "an escape sequence (ESC)"
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("a control character (U+%04X)", r)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("a bidirectional override (U+%04X) that reorders what the diff shows", r)
		}
	}
	return ""
}

// Diff is the proposed change as a unified diff against the file there is
// now ("" when the proposal is what is there already). Write later refuses
// if the file no longer matches what this diff was made from.
func (d *InitDraft) Diff(proposal string) string {
	d.seen = nil
	if data, _, err := readReal(nil, d.Target, 0); err == nil {
		d.seen = data
	}
	if d.seen != nil && string(d.seen) == proposal {
		return ""
	}
	from := "a/AGENTS.md"
	if d.seen == nil {
		from = "/dev/null"
	}
	return udiff.Unified(from, "b/AGENTS.md", string(d.seen), proposal)
}

// Write writes the proposal atomically, keeping the file's mode. It writes
// nothing when the file changed since Diff showed the change: the person
// approved a diff against that text, not against an edit made since.
func (d *InitDraft) Write(proposal string) error {
	now, _, err := readReal(nil, d.Target, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s before writing it: %w", d.Target, err)
	}
	if (err == nil) != (d.seen != nil) || !bytes.Equal(now, d.seen) {
		return fmt.Errorf("%s changed on disk after the proposal was shown, so it was not written; run /init again", d.Path)
	}
	if err := atomicfile.Write(d.Target, []byte(proposal), 0o644, true); err != nil {
		return fmt.Errorf("writing %s: %w", d.Target, err)
	}
	return nil
}
