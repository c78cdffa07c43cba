package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codewhale/codewhale/internal/config"
	"github.com/codewhale/codewhale/internal/filelock"
	"github.com/codewhale/codewhale/internal/lazyre"
)

// Store is the durable task store under one data directory:
// <dir>/tasks/<task_id>.json (one record per task, written atomically),
// <dir>/queue.json (queued ids in run order) and <dir>/artifacts/.
// It is safe for concurrent use within one process.
type Store struct {
	dir    string
	now    func() time.Time
	mu     sync.Mutex
	tasks  map[string]*TaskRecord
	queue  []string
	report LoadReport
	run    runnerState
	// holdingWrite is set while this store holds write.lock; runLock is
	// runner.lock while a runner is attached (procs.go).
	holdingWrite bool
	runLock      *filelock.Lock
}

// DefaultDir resolves the data directory: $CODEWHALE_TASKS_DIR, else
// <CODEWHALE_HOME>/tasks (CODEWHALE_HOME defaults to ~/.codewhale); with no
// CODEWHALE_HOME set and no ~/.codewhale/tasks, an existing legacy
// ~/.deepseek/tasks is used. getenv nil means os.Getenv.
func DefaultDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, v := range []string{"CODEWHALE_TASKS_DIR", "DEEPSEEK_TASKS_DIR"} {
		if d := strings.TrimSpace(getenv(v)); d != "" {
			return d
		}
	}
	primary := filepath.Join(config.HomeDir(getenv), "tasks")
	if strings.TrimSpace(getenv("CODEWHALE_HOME")) == "" && !isDir(primary) {
		if home, err := os.UserHomeDir(); err == nil && isDir(filepath.Join(home, ".deepseek", "tasks")) {
			return filepath.Join(home, ".deepseek", "tasks")
		}
	}
	return primary
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }

// Open loads the store in dir, creating its layout. Damage is repaired, not
// fatal: corrupt or half-written files are moved aside and listed in the
// report, tasks found running are failed (the restart rule), and every
// other task still loads. The error is for a directory that cannot be used.
func Open(dir string) (*Store, LoadReport, error) {
	s := &Store{dir: dir, now: func() time.Time { return time.Now().UTC() }, tasks: map[string]*TaskRecord{}}
	s.report.Dir = dir
	for _, d := range []string{s.tasksDir(), s.artifactsDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, LoadReport{}, fmt.Errorf("task store: create %s: %w", d, err)
		}
	}
	// Another process may be writing this store (a TUI, `automation
	// run-due`, an exec): loading and its repairs hold the write lock, so
	// no staged file is finished or rewritten under a writer.
	if err := s.withWriteLock(s.load); err != nil {
		return nil, s.report, fmt.Errorf("task store: %w", err)
	}
	return s, s.report, nil
}

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

// Report is what Open found and repaired.
func (s *Store) Report() LoadReport { return s.report }

func (s *Store) tasksDir() string          { return filepath.Join(s.dir, "tasks") }
func (s *Store) artifactsDir() string      { return filepath.Join(s.dir, "artifacts") }
func (s *Store) queuePath() string         { return filepath.Join(s.dir, "queue.json") }
func (s *Store) taskPath(id string) string { return filepath.Join(s.tasksDir(), id+".json") }
func (s *Store) stagedPath(id string) string {
	return filepath.Join(s.tasksDir(), "."+id+pendingSuffix)
}

// persist writes one record atomically. Callers hold s.mu (or own s
// exclusively, as load does).
func (s *Store) persist(rec *TaskRecord) error {
	return s.writeLocked(func() error { return writeJSONAtomic(s.taskPath(rec.ID), s.stagedPath(rec.ID), rec) })
}

func (s *Store) persistQueue() error {
	return s.writeLocked(func() error {
		return writeJSONAtomic(s.queuePath(), filepath.Join(s.dir, ".queue.json.pending"),
			map[string][]string{"queue": append([]string{}, s.queue...)})
	})
}

// NewTask is a request to enqueue work.
type NewTask struct {
	Prompt         string
	Model          string
	Workspace      string
	Mode           string // agent | plan | operate
	AllowShell     bool
	TrustMode      bool
	AutoApprove    bool
	OwnerSessionID string
	// Posture is the creator's approval_policy value the task runs under
	// (Authority.Cap sets it).
	Posture string
}

// ErrEmptyPrompt refuses a task with nothing to do.
var ErrEmptyPrompt error = exactError("Task prompt cannot be empty")

// exactError carries a message whose wording is part of the contract.
type exactError string

func (e exactError) Error() string { return string(e) }

// Create enqueues a task. The record is durable before Create returns; if
// the queue cannot be saved the record is removed again and nothing is
// queued.
func (s *Store) Create(req NewTask) (TaskRecord, error) {
	prompt := strings.TrimSpace(req.Prompt)
	if prompt == "" {
		return TaskRecord{}, ErrEmptyPrompt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, err := s.newID()
	if err != nil {
		return TaskRecord{}, err
	}
	now := s.now()
	rec := &TaskRecord{SchemaVersion: SchemaVersion, ID: id, Prompt: prompt, Model: req.Model,
		Workspace: req.Workspace, Mode: req.Mode, AllowShell: req.AllowShell, TrustMode: req.TrustMode,
		AutoApprove: req.AutoApprove, Posture: req.Posture, Status: Queued, CreatedAt: now, OwnerSessionID: req.OwnerSessionID}
	rec.fillSlices()
	rec.event(now, "queued", "Task queued", true)
	if err := s.persist(rec); err != nil {
		return TaskRecord{}, err
	}
	s.queue = append(s.queue, id)
	if err := s.persistQueue(); err != nil {
		s.queue = s.queue[:len(s.queue)-1]
		os.Remove(s.taskPath(id))
		return TaskRecord{}, err
	}
	s.tasks[id] = rec
	s.run.wakeOne()
	return rec.clone(), nil
}

// newID draws task_<16 hex> until it names no record or file.
func (s *Store) newID() (string, error) {
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		id := "task_" + hex.EncodeToString(b[:])
		if _, dup := s.tasks[id]; dup {
			continue
		}
		if _, err := os.Lstat(s.taskPath(id)); err == nil {
			continue
		}
		return id, nil
	}
}

// List returns up to limit tasks, newest first (limit <= 0: all).
func (s *Store) List(limit int) []TaskSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := make([]*TaskRecord, 0, len(s.tasks))
	for _, r := range s.tasks {
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return older(recs[j], recs[i]) })
	if limit > 0 && len(recs) > limit {
		recs = recs[:limit]
	}
	out := make([]TaskSummary, len(recs))
	for i, r := range recs {
		out[i] = r.summary()
	}
	return out
}

// Queued returns the queued tasks in run order: what a runner attached
// now starts (the start-up list of runs names each with its authority).
func (s *Store) Queued() []TaskRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TaskRecord, 0, len(s.queue))
	for _, id := range s.queue {
		if r, ok := s.tasks[id]; ok {
			out = append(out, r.clone())
		}
	}
	return out
}

// Get returns the task with the full id or unique prefix.
func (s *Store) Get(idOrPrefix string) (TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.resolve(idOrPrefix)
	if err != nil {
		return TaskRecord{}, err
	}
	return rec.clone(), nil
}

// resolve finds a task by full id, else by unique prefix.
func (s *Store) resolve(idOrPrefix string) (*TaskRecord, error) {
	if rec, ok := s.tasks[idOrPrefix]; ok {
		return rec, nil
	}
	var matches []*TaskRecord
	if idOrPrefix != "" {
		for id, rec := range s.tasks {
			if strings.HasPrefix(id, idOrPrefix) {
				matches = append(matches, rec)
			}
		}
	}
	switch len(matches) {
	case 0:
		if why := s.report.about(idOrPrefix); why != "" {
			return nil, exactError("Task not found: " + idOrPrefix + ": " + why)
		}
		return nil, exactError("Task not found: " + idOrPrefix)
	case 1:
		return matches[0], nil
	}
	return nil, exactError(fmt.Sprintf("Ambiguous task prefix '%s': matches %d tasks", idOrPrefix, len(matches)))
}

// Disposition is what Cancel did.
type Disposition string

const (
	Forced          Disposition = "forced"           // a queued task was canceled
	Requested       Disposition = "requested"        // a running task's runner was told to stop
	AlreadyFinished Disposition = "already_finished" // nothing to cancel
)

// Cancel cancels a queued task at once, asks the runner of a running task
// to stop, and leaves a finished task alone.
func (s *Store) Cancel(idOrPrefix string) (TaskRecord, Disposition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.resolve(idOrPrefix)
	if err != nil {
		return TaskRecord{}, "", err
	}
	now := s.now()
	var d Disposition
	switch rec.Status {
	case Queued:
		d = Forced
		rec.end(now, Canceled)
		zero := int64(0)
		rec.DurationMS = &zero
		rec.event(now, "canceled", "Task canceled before execution", true)
		s.queue = removeID(s.queue, rec.ID)
		if err := s.persistQueue(); err != nil {
			return TaskRecord{}, "", err
		}
	case Running:
		d = Requested
		rec.event(now, "cancel_requested", "Cancellation requested", true)
		s.run.requestCancel(rec.ID)
	default:
		return rec.clone(), AlreadyFinished, nil
	}
	if err := s.persist(rec); err != nil {
		return TaskRecord{}, "", err
	}
	return rec.clone(), d, nil
}

func removeID(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

var labelUnsafe = lazyre.New(`[^A-Za-z0-9_-]`)

// WriteArtifact stores content as a new file under
// <dir>/artifacts/<owner>/ (owner is the task id, or "runtime" for work not
// inside a task) and returns its absolute path.
func (s *Store) WriteArtifact(owner, label, content string) (string, error) {
	if owner == "" {
		owner = "runtime"
	}
	if filepath.Base(owner) != owner || strings.HasPrefix(owner, ".") {
		return "", fmt.Errorf("artifact owner %q is not a single path component", owner)
	}
	dir := filepath.Join(s.artifactsDir(), owner)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("%s_%s_%s.txt", s.now().Format("20060102T150405.000Z"), labelUnsafe().ReplaceAllString(label, "_"), hex.EncodeToString(b[:]))
	path := filepath.Join(dir, name)
	if err := writeAtomic(path, filepath.Join(dir, "."+name+".pending"), []byte(content)); err != nil {
		return "", err
	}
	return path, nil
}

// RecordGate attaches gate evidence and its log artifact to a task.
func (s *Store) RecordGate(taskID string, g Gate, log *Artifact) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.resolve(taskID)
	if err != nil {
		return err
	}
	rec.Gates = append(rec.Gates, g)
	if log != nil {
		rec.Artifacts = append(rec.Artifacts, *log)
	}
	rec.event(g.RecordedAt, "gate", fmt.Sprintf("%s gate %s: %s", g.Gate, g.Status, Summarize(g.Command, 160)), false)
	return s.persist(rec)
}

// contextKey is unexported so only this package sets it.
type contextKey struct{}

// WithTaskID marks ctx as running inside durable task id; a Runner's ctx
// carries it so tools can attach evidence to the task.
func WithTaskID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, contextKey{}, id)
}

// TaskIDFrom returns the durable task ctx runs inside, if any.
func TaskIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(contextKey{}).(string)
	return id
}
