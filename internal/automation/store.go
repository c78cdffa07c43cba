// Package automation keeps scheduled work that survives restarts: each
// automation is a prompt, a schedule and the authority its runs may use,
// stored as one JSON file under $CODEWHALE_HOME/automations. A due run
// enqueues an ordinary durable task; the task runner executes it. Several
// processes may look at the same store: the due check runs under a file
// lock, so each run is enqueued exactly once.
package automation

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// SchemaVersion is the record format this build writes; newer ones are
// refused, not rewritten.
const SchemaVersion = 1

// historyKeep bounds the runs kept on a record.
const historyKeep = 50

// Statuses of an automation.
const (
	Active = "active"
	Paused = "paused"
	Done   = "done" // a one-off that ran
)

// Run is one due run.
type Run struct {
	At     time.Time `json:"at"`
	Due    time.Time `json:"due"`
	TaskID string    `json:"task_id,omitempty"`
	Status string    `json:"status"` // enqueued, failed
	Missed int       `json:"missed,omitempty"`
	Note   string    `json:"note,omitempty"`
}

// Automation is one stored automation.
type Automation struct {
	SchemaVersion int        `json:"schema_version"`
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	Prompt        string     `json:"prompt"`
	Schedule      string     `json:"schedule"`
	Timezone      string     `json:"timezone"`
	Mode          string     `json:"mode"`
	Workspace     string     `json:"workspace"`
	Ceiling       Ceiling    `json:"posture_ceiling"`
	Status        string     `json:"status"`
	NextRun       *time.Time `json:"next_run"`
	LastRun       *time.Time `json:"last_run"`
	History       []Run      `json:"history"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// Location is the automation's time zone.
func (a *Automation) Location() (*time.Location, error) {
	if a.Timezone == "" || a.Timezone == "Local" {
		return time.Local, nil
	}
	return time.LoadLocation(a.Timezone)
}

// schedule parses the automation's schedule in its zone.
func (a *Automation) schedule() (Schedule, error) {
	loc, err := a.Location()
	if err != nil {
		return nil, fmt.Errorf("automation %s: time zone %q: %w", a.ID, a.Timezone, err)
	}
	return ParseSchedule(a.Schedule, loc)
}

// plan sets NextRun from the schedule after t; a schedule with no more runs
// leaves it nil.
func (a *Automation) plan(t time.Time) error {
	s, err := a.schedule()
	if err != nil {
		return err
	}
	if next, ok := s.Next(t); ok {
		next = next.UTC()
		a.NextRun = &next
	} else {
		a.NextRun = nil
	}
	return nil
}

// Problem is a record that could not be loaded.
type Problem struct {
	Path        string `json:"path"`
	Reason      string `json:"reason"`
	Quarantined string `json:"quarantined_to,omitempty"`
}

// Store is the automations directory. It keeps no state in memory: every
// call reads the files, so several processes can share it.
type Store struct {
	Dir string
	Now func() time.Time
}

// Open returns the store in dir, creating it.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("automations: create %s: %w", dir, err)
	}
	return &Store{Dir: dir, Now: func() time.Time { return time.Now().UTC() }}, nil
}

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".json") }

func (s *Store) lockPath() string { return filepath.Join(s.Dir, ".due.lock") }

// List returns every automation by creation time, and the files that could
// not be loaded: corrupt ones are quarantined, newer-schema ones left alone.
func (s *Store) List() ([]Automation, []Problem, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("automations: %w", err)
	}
	var out []Automation
	var problems []Problem
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		a, p := s.load(filepath.Join(s.Dir, e.Name()))
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, problems, nil
}

func (s *Store) load(path string) (*Automation, *Problem) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Problem{Path: path, Reason: err.Error()}
	}
	var a Automation
	want := strings.TrimSuffix(filepath.Base(path), ".json")
	switch err := json.Unmarshal(data, &a); {
	case err != nil:
		return nil, s.quarantine(path, "not valid JSON: "+err.Error())
	case a.SchemaVersion > SchemaVersion:
		return nil, &Problem{Path: path, Reason: fmt.Sprintf("written by a newer codewhale (schema_version %d > %d); left untouched", a.SchemaVersion, SchemaVersion)}
	case a.SchemaVersion < 1 || a.ID != want || a.Prompt == "" || a.Schedule == "":
		return nil, s.quarantine(path, "not an automation record (missing schema_version, id, prompt or schedule)")
	}
	return &a, nil
}

func (s *Store) quarantine(path, reason string) *Problem {
	p := &Problem{Path: path, Reason: reason}
	if to, err := atomicfile.Quarantine(path, s.Now()); err == nil {
		p.Quarantined = to
	}
	return p
}

// ErrNotFound is returned for an unknown id.
var ErrNotFound = errors.New("automation not found")

// Get reads one automation.
func (s *Store) Get(id string) (*Automation, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q is not an automation id (auto_<8 hex>)", ErrNotFound, id)
	}
	if _, err := os.Stat(s.path(id)); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	a, p := s.load(s.path(id))
	if p != nil {
		msg := "automation " + id + " cannot be read: " + p.Reason
		if p.Quarantined != "" {
			msg += "; moved to " + p.Quarantined
		}
		return nil, errors.New(msg)
	}
	return a, nil
}

func validID(id string) bool {
	rest, ok := strings.CutPrefix(id, "auto_")
	if !ok || len(rest) != 8 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

func (s *Store) save(a *Automation) error {
	a.UpdatedAt = s.Now()
	if len(a.History) > historyKeep {
		a.History = a.History[len(a.History)-historyKeep:]
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path(a.ID), append(data, '\n'), 0o600, false); err != nil {
		return fmt.Errorf("automations: save %s: %w", a.ID, err)
	}
	return nil
}

// New is what Create needs.
type New struct {
	Name, Prompt, Schedule, Timezone, Mode, Workspace string
	Ceiling                                           Ceiling
	Paused                                            bool
}

// Create validates the schedule and stores a new automation.
func (s *Store) Create(n New) (*Automation, error) {
	if strings.TrimSpace(n.Prompt) == "" {
		return nil, errors.New("automation needs a prompt")
	}
	if n.Timezone == "" {
		n.Timezone = time.Local.String()
	}
	var raw [4]byte
	_, _ = rand.Read(raw[:])
	now := s.Now()
	a := &Automation{SchemaVersion: SchemaVersion, ID: "auto_" + hex.EncodeToString(raw[:]), Name: strings.TrimSpace(n.Name),
		Prompt: strings.TrimSpace(n.Prompt), Schedule: strings.TrimSpace(n.Schedule), Timezone: n.Timezone, Mode: n.Mode,
		Workspace: n.Workspace, Ceiling: n.Ceiling, Status: Active, History: []Run{}, CreatedAt: now}
	if a.Name == "" {
		a.Name = summarize(a.Prompt, 60)
	}
	if a.Mode == "" {
		a.Mode = "act"
	}
	if n.Paused {
		a.Status = Paused
	}
	if err := a.plan(now); err != nil {
		return nil, err
	}
	return a, s.save(a)
}

// Update changes an automation with fn and re-plans its next run.
func (s *Store) Update(id string, fn func(*Automation) error) (*Automation, error) {
	a, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if err := fn(a); err != nil {
		return nil, err
	}
	if a.Status == Active || a.NextRun != nil {
		if err := a.plan(s.Now()); err != nil {
			return nil, err
		}
	}
	return a, s.save(a)
}

// SetStatus pauses or resumes an automation.
func (s *Store) SetStatus(id, status string) (*Automation, error) {
	return s.Update(id, func(a *Automation) error { return a.SetStatus(status) })
}

// SetStatus pauses or resumes a; a one-off that already ran cannot resume.
func (a *Automation) SetStatus(status string) error {
	if a.Status == Done && status == Active {
		return fmt.Errorf("automation %s was a one-off that already ran; create a new one", a.ID)
	}
	a.Status = status
	return nil
}

// Delete removes an automation.
func (s *Store) Delete(id string) error {
	if _, err := s.Get(id); err != nil {
		return err
	}
	return os.Remove(s.path(id))
}

func summarize(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
