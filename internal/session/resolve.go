package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/posture"
)

// Loaded is a session read back for resume.
type Loaded struct {
	Meta Meta
	Path string
	// Session is the repaired history and settings, ready for
	// engine.Options.Session or engine.SyncSession.
	Session engine.Session
	Damage  Damage              // what loading dropped
	Repair  engine.RepairReport // what the tool-history repair changed
	// Backup is the damaged file as it was, kept beside it when the writer
	// that claimed the session repaired it ("" when nothing was repaired).
	Backup string
	// Warning is set when the session was recorded in another workspace.
	Warning string
	// ImagesLost counts images whose bytes the session did not keep: they
	// are their descriptions in Session (ImagesLine).
	ImagesLost int
	// Persist says the file differs from Session (damage was dropped or the
	// history repaired): hosts pass it as SyncSession.Persist so the clean
	// history replaces the file.
	Persist bool
}

// RepairLine is the [tool_history_repair] line to show, or "".
func (l *Loaded) RepairLine() string {
	if !l.Repair.Changed() {
		return ""
	}
	return l.Repair.Line()
}

// DamageLine is the [session_recovery] report to show, or "": one line per
// dropped or truncated record under a first line naming the kept copy.
func (l *Loaded) DamageLine() string { return l.Damage.Report(l.Meta.MessageCount, l.Backup) }

// Notices are what a host prints on resume, in order: the workspace
// warning, what was dropped (several lines), what was repaired.
func (l *Loaded) Notices() []string {
	var out []string
	for _, s := range []string{l.Warning, l.DamageLine(), l.RepairLine(), l.ImagesLine()} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Load reads the session file at path and repairs its tool history
// (CONTRACT.md §9.11). A newer schema is refused with a *NewerSchemaError.
func Load(path string) (*Loaded, error) {
	j, err := readJournal(path)
	if err != nil {
		return nil, err
	}
	meta := j.meta()
	msgs, rep := engine.RepairHistory(j.messages)
	lost := loadImages(filepath.Dir(path), idFromPath(path), msgs)
	mode, err := posture.ParseMode(meta.Mode)
	if err != nil {
		mode = posture.Act
	}
	return &Loaded{Meta: meta, Path: path, Damage: j.damage, Repair: rep, ImagesLost: lost,
		Persist: j.damage.Any() || rep.Changed(),
		Session: engine.Session{ID: meta.ID, Messages: msgs, SystemPrompt: j.system, Model: meta.Model,
			Workspace: meta.Workspace, Mode: mode, Usage: cloneUsage(meta.Usage), Parent: meta.ParentSessionID}}, nil
}

// Resolve finds and loads a session: by full id or unique id prefix when ref
// is set, else the most recent session of workspace when latest is set. The
// returned session runs in workspace (when given); if it was recorded
// elsewhere, Loaded.Warning says so.
func Resolve(home, workspace, ref string, latest bool) (*Loaded, error) {
	var path string
	var err error
	switch ref = strings.TrimSpace(ref); {
	case ref != "":
		path, err = find(home, ref)
	case latest:
		path, err = latestFor(home, workspace)
	default:
		err = errors.New("no session given: pass a session id or prefix, or --last for this workspace's latest")
	}
	if err != nil {
		return nil, err
	}
	l, err := Load(path)
	if err != nil {
		return nil, err
	}
	if ws := cleanPath(workspace); ws != "" {
		if rec := cleanPath(l.Meta.Workspace); rec != "" && rec != ws {
			l.Warning = fmt.Sprintf("Warning: session %s was recorded in workspace %s, not in the current workspace %s; paths in its history refer to the old workspace.",
				ShortID(l.Meta.ID), rec, ws)
		}
		l.Session.Workspace = ws
	}
	return l, nil
}

// ShortID is the id prefix shown in lists.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// find resolves a full id or a unique prefix to a journal path.
func find(home, ref string) (string, error) {
	if err := ValidID(ref); err != nil {
		return "", err
	}
	dir := Dir(home)
	exact := filepath.Join(dir, ref+journalExt)
	if _, err := os.Stat(exact); err == nil {
		return exact, nil
	}
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("listing sessions in %s: %w", dir, err)
	}
	var ids []string
	for _, de := range des {
		name := de.Name()
		if strings.HasSuffix(name, journalExt) && strings.HasPrefix(strings.ToLower(name), strings.ToLower(ref)) {
			ids = append(ids, strings.TrimSuffix(name, journalExt))
		}
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("no saved session matches %q; run `codewhale sessions --all` to list sessions", ref)
	case 1:
		return filepath.Join(dir, ids[0]+journalExt), nil
	}
	return "", ambiguous(home, ref, ids)
}

func ambiguous(home, ref string, ids []string) error {
	all, _ := List(home, Query{Archived: true})
	var b strings.Builder
	fmt.Fprintf(&b, "session prefix %q is ambiguous; it matches %d sessions:", ref, len(ids))
	shown := 0
	for _, m := range all {
		for _, id := range ids {
			if m.ID == id && shown < 10 {
				fmt.Fprintf(&b, "\n  %s  %s  %s", m.ID, Age(m.UpdatedAt, time.Now()), m.Title)
				shown++
			}
		}
	}
	if len(ids) > shown {
		fmt.Fprintf(&b, "\n  … and %d more", len(ids)-shown)
	}
	b.WriteString("\nGive more characters of the id.")
	return errors.New(b.String())
}

func latestFor(home, workspace string) (string, error) {
	ms, err := List(home, Query{Workspace: workspace, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", fmt.Errorf("no saved session for workspace %s; run `codewhale sessions --all` to list sessions of every workspace", workspace)
	}
	return filepath.Join(Dir(home), ms[0].ID+journalExt), nil
}

// Age is a compact "how long ago" (42s, 5m, 3h, 2d, 7w).
func Age(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return fmt.Sprintf("%dw", int(d.Hours()/24/7))
}
