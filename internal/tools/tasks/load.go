package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadReport says what Open found and repaired. A damaged store is never
// silently emptied: every file that could not be used is named here, with
// where it was moved.
type LoadReport struct {
	Dir         string        `json:"dir"`
	Loaded      int           `json:"loaded"`
	Recovered   []string      `json:"recovered,omitempty"`   // running at load → failed
	Completed   []string      `json:"completed,omitempty"`   // staged writes that were whole and were finished
	Quarantined []Quarantined `json:"quarantined,omitempty"` // files moved aside
	Refused     []Refused     `json:"refused,omitempty"`     // written by a newer codewhale; left unchanged
}

// Refused is a record from a newer schema: it is not loaded, and never
// moved, rewritten or deleted (as sessions are refused).
type Refused struct {
	Path    string `json:"path"`
	Version int    `json:"schema_version"`
}

// NewerSchemaError is a task record written by a newer codewhale.
type NewerSchemaError struct {
	Path    string
	Version int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("%s uses schema_version %d but this codewhale reads up to %d; upgrade codewhale to use it (the file was left unchanged)",
		e.Path, e.Version, SchemaVersion)
}

// Quarantined is one unusable file that was moved aside.
type Quarantined struct {
	Path    string `json:"path"`
	MovedTo string `json:"moved_to,omitempty"` // empty when the move itself failed
	Reason  string `json:"reason"`
}

// Clean reports whether the store loaded with nothing to repair.
func (r LoadReport) Clean() bool {
	return len(r.Recovered) == 0 && len(r.Completed) == 0 && len(r.Quarantined) == 0 && len(r.Refused) == 0
}

// Lines is the report as one line per finding, for a stderr warning or a
// UI notice each; nil when clean.
func (r LoadReport) Lines() []string {
	if r.Clean() {
		return nil
	}
	var lines []string
	if n := len(r.Recovered); n > 0 {
		lines = append(lines, fmt.Sprintf("task store %s: %d running task(s) marked failed: %s", r.Dir, n, RestartError))
	}
	if n := len(r.Completed); n > 0 {
		lines = append(lines, fmt.Sprintf("task store %s: %d interrupted write(s) completed: %s", r.Dir, n, strings.Join(r.Completed, ", ")))
	}
	for _, q := range r.Quarantined {
		if q.MovedTo == "" {
			lines = append(lines, fmt.Sprintf("task store: unreadable %s (%s); it could not be moved aside", q.Path, q.Reason))
			continue
		}
		lines = append(lines, fmt.Sprintf("task store: unreadable %s (%s) quarantined: moved to %s", q.Path, q.Reason, q.MovedTo))
	}
	for _, f := range r.Refused {
		lines = append(lines, "task store: not loaded: "+(&NewerSchemaError{Path: f.Path, Version: f.Version}).Error())
	}
	return lines
}

// about explains what loading did with the file of task id, or "".
func (r LoadReport) about(id string) string {
	for _, q := range r.Quarantined {
		if name := filepath.Base(q.Path); name == id+".json" || name == "."+id+pendingSuffix {
			return fmt.Sprintf("its file was unreadable when the store loaded (%s) and was quarantined as %s", q.Reason, q.MovedTo)
		}
	}
	for _, f := range r.Refused {
		if filepath.Base(f.Path) == id+".json" {
			return (&NewerSchemaError{Path: f.Path, Version: f.Version}).Error()
		}
	}
	return ""
}

// String is a short human account for the UI; "" when clean.
func (r LoadReport) String() string {
	if r.Clean() {
		return ""
	}
	return fmt.Sprintf("task store %s: %d task(s) loaded\n", r.Dir, r.Loaded) + strings.Join(r.Lines(), "\n")
}

const pendingSuffix = ".json.pending"

// load reads every record and the queue, repairing what it can. It fails
// only when the directory itself cannot be read.
func (s *Store) load() error {
	entries, err := os.ReadDir(s.tasksDir())
	if err != nil {
		return fmt.Errorf("read task store %s: %w", s.tasksDir(), err)
	}
	// Staged writes first: a whole one is newer than its record.
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, ".") && strings.HasSuffix(name, pendingSuffix) {
			s.finishStaged(strings.TrimSuffix(strings.TrimPrefix(name, "."), pendingSuffix))
		}
	}
	if entries, err = os.ReadDir(s.tasksDir()); err != nil {
		return fmt.Errorf("read task store %s: %w", s.tasksDir(), err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".json") {
			s.loadRecord(strings.TrimSuffix(name, ".json"))
		}
	}
	s.report.Loaded = len(s.tasks)
	s.recoverRunning()
	return s.loadQueue()
}

// finishStaged promotes a staged record that parses and validates, and
// quarantines one that does not (a write cut short).
func (s *Store) finishStaged(id string) {
	staged := s.stagedPath(id)
	_, err := readRecord(staged, id)
	if s.refuse(err) {
		return
	}
	if err == nil {
		if err = os.Rename(staged, s.taskPath(id)); err == nil {
			s.report.Completed = append(s.report.Completed, id)
			return
		}
	}
	s.quarantine(staged, err)
}

func (s *Store) loadRecord(id string) {
	path := s.taskPath(id)
	rec, err := readRecord(path, id)
	if s.refuse(err) {
		return
	}
	if err != nil {
		s.quarantine(path, err)
		return
	}
	s.tasks[id] = rec
}

func readRecord(path, id string) (*TaskRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec TaskRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if rec.SchemaVersion > SchemaVersion {
		return nil, &NewerSchemaError{Path: path, Version: rec.SchemaVersion}
	}
	if err := rec.validate(id); err != nil {
		return nil, err
	}
	return &rec, nil
}

// refuse records a newer-schema file and reports whether err was one.
func (s *Store) refuse(err error) bool {
	var ns *NewerSchemaError
	if !errors.As(err, &ns) {
		return false
	}
	s.report.Refused = append(s.report.Refused, Refused{Path: ns.Path, Version: ns.Version})
	return true
}

func (s *Store) quarantine(path string, cause error) {
	q := Quarantined{Path: path, Reason: cause.Error()}
	moved, err := quarantine(path, s.now())
	if err != nil {
		q.Reason += "; moving it aside failed: " + err.Error()
	}
	q.MovedTo = moved
	s.report.Quarantined = append(s.report.Quarantined, q)
}

// recoverRunning applies the restart rule: a task found running has no
// process attached any more, so it fails. Tasks are never reattached.
func (s *Store) recoverRunning() {
	if s.runnerElsewhere() {
		return // another process's runner is executing them
	}
	now := s.now()
	for _, id := range s.sortedIDs() {
		rec := s.tasks[id]
		if rec.Status != Running {
			continue
		}
		rec.end(now, Failed)
		rec.Error = RestartError
		rec.event(now, "recovered", RestartError, true)
		s.report.Recovered = append(s.report.Recovered, id)
		if err := s.persist(rec); err != nil {
			s.report.Quarantined = append(s.report.Quarantined, Quarantined{Path: s.taskPath(id),
				Reason: "recovered in memory but not saved: " + err.Error()})
		}
	}
}

// loadQueue reads queue.json and reconciles it with the records: only
// queued tasks stay, and queued tasks it does not list are appended oldest
// first. A corrupt queue file is quarantined and rebuilt from the records.
func (s *Store) loadQueue() error {
	var file struct {
		Queue []string `json:"queue"`
	}
	data, err := os.ReadFile(s.queuePath())
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", s.queuePath(), err)
	default:
		if jerr := json.Unmarshal(data, &file); jerr != nil {
			s.quarantine(s.queuePath(), fmt.Errorf("not valid JSON: %v", jerr))
			file.Queue = nil
		}
	}
	seen := map[string]bool{}
	for _, id := range file.Queue {
		if rec, ok := s.tasks[id]; ok && rec.Status == Queued && !seen[id] {
			seen[id] = true
			s.queue = append(s.queue, id)
		}
	}
	var missing []*TaskRecord
	for _, rec := range s.tasks {
		if rec.Status == Queued && !seen[rec.ID] {
			missing = append(missing, rec)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return older(missing[i], missing[j]) })
	for _, rec := range missing {
		s.queue = append(s.queue, rec.ID)
	}
	if !equalStrings(file.Queue, s.queue) {
		return s.persistQueue()
	}
	return nil
}

func older(a, b *TaskRecord) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *Store) sortedIDs() []string {
	ids := make([]string, 0, len(s.tasks))
	for id := range s.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
