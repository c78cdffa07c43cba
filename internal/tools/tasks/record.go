// Package tasks implements durable, restart-aware task records (CONTRACT.md
// §6.7): a file-backed Store, the `tasks` tool with its create, list, read,
// cancel and gate_run actions, and the hidden task_create/task_list/task_read
// replay aliases.
//
// A created task is queued. It runs only when a Runner is attached to the
// Store; without one it stays queued and every result that shows it says so.
package tasks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/codewhale/codewhale/internal/lazyre"
)

// SchemaVersion is written into every record.
const SchemaVersion = 2

// Status is a task's lifecycle state.
type Status string

const (
	Queued    Status = "queued"
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
	Canceled  Status = "canceled"
)

// Title is the capitalised form used in result summaries ("Queued").
func (s Status) Title() string {
	switch s {
	case Queued:
		return "Queued"
	case Running:
		return "Running"
	case Completed:
		return "Completed"
	case Failed:
		return "Failed"
	case Canceled:
		return "Canceled"
	}
	return string(s)
}

func (s Status) valid() bool { return s.Title() != string(s) }

// Terminal reports whether the task has finished.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Canceled }

// RestartError is the exact error a task found running at load time gets.
const RestartError = "Interrupted by process restart; prior process is not attached"

// TimelineEntry is one event in a task's history.
type TimelineEntry struct {
	Timestamp  time.Time `json:"timestamp"`
	Kind       string    `json:"kind"`
	Summary    string    `json:"summary"`
	DetailPath string    `json:"detail_path,omitempty"`
}

// Gate is structured verification evidence (gate_run).
type Gate struct {
	ID             string    `json:"id"`
	Gate           string    `json:"gate"`
	Command        string    `json:"command"`
	Cwd            string    `json:"cwd"`
	ExitCode       *int      `json:"exit_code"`
	Status         string    `json:"status"` // passed | failed | timeout
	Classification string    `json:"classification"`
	DurationMS     int64     `json:"duration_ms"`
	Summary        string    `json:"summary"`
	LogPath        string    `json:"log_path,omitempty"`
	RecordedAt     time.Time `json:"recorded_at"`
}

// Artifact references a file under the store's artifacts directory.
type Artifact struct {
	Label     string    `json:"label"`
	Path      string    `json:"path"`
	Summary   string    `json:"summary"`
	CreatedAt time.Time `json:"created_at"`
}

// ChecklistItem is one To-do entry of the task's own Work ledger.
type ChecklistItem struct {
	ID      int    `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Checklist is the durable form of the task thread's To-do list.
type Checklist struct {
	Items         []ChecklistItem `json:"items"`
	CompletionPct int             `json:"completion_pct"`
	InProgressID  *int            `json:"in_progress_id"`
	UpdatedAt     *time.Time      `json:"updated_at"`
}

// TaskRecord is one durable task, stored as <data>/tasks/<id>.json.
// Attempts, GithubEvents and ToolCalls are kept verbatim: this build does not
// produce them but preserves what other writers stored.
type TaskRecord struct {
	SchemaVersion  int               `json:"schema_version"`
	ID             string            `json:"id"`
	Prompt         string            `json:"prompt"`
	Model          string            `json:"model"`
	Workspace      string            `json:"workspace"`
	Mode           string            `json:"mode"`
	AllowShell     bool              `json:"allow_shell"`
	TrustMode      bool              `json:"trust_mode"`
	AutoApprove    bool              `json:"auto_approve"`
	Posture        string            `json:"posture,omitempty"` // the creator's approval_policy, which the run keeps
	Status         Status            `json:"status"`
	CreatedAt      time.Time         `json:"created_at"`
	StartedAt      *time.Time        `json:"started_at"`
	EndedAt        *time.Time        `json:"ended_at"`
	DurationMS     *int64            `json:"duration_ms"`
	ResultSummary  string            `json:"result_summary,omitempty"`
	Error          string            `json:"error,omitempty"`
	ThreadID       string            `json:"thread_id,omitempty"`
	TurnID         string            `json:"turn_id,omitempty"`
	OwnerSessionID string            `json:"owner_session_id,omitempty"`
	LifecycleSeq   int64             `json:"lifecycle_seq"`
	Checklist      Checklist         `json:"checklist"`
	Gates          []Gate            `json:"gates"`
	Attempts       []json.RawMessage `json:"attempts"`
	Artifacts      []Artifact        `json:"artifacts"`
	GithubEvents   []json.RawMessage `json:"github_events"`
	ToolCalls      []json.RawMessage `json:"tool_calls"`
	Timeline       []TimelineEntry   `json:"timeline"`
}

// TaskSummary is the list view of a task.
type TaskSummary struct {
	ID             string     `json:"id"`
	Status         Status     `json:"status"`
	PromptSummary  string     `json:"prompt_summary"`
	Model          string     `json:"model"`
	Mode           string     `json:"mode"`
	Workspace      string     `json:"workspace"`
	CreatedAt      time.Time  `json:"created_at"`
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	DurationMS     *int64     `json:"duration_ms"`
	LifecycleSeq   int64      `json:"lifecycle_seq"`
	Error          string     `json:"error,omitempty"`
	ThreadID       string     `json:"thread_id,omitempty"`
	TurnID         string     `json:"turn_id,omitempty"`
	OwnerSessionID string     `json:"owner_session_id,omitempty"`
}

func (r *TaskRecord) summary() TaskSummary {
	return TaskSummary{ID: r.ID, Status: r.Status, PromptSummary: Summarize(r.Prompt, 240), Model: r.Model,
		Mode: r.Mode, Workspace: r.Workspace, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt,
		DurationMS: r.DurationMS, LifecycleSeq: r.LifecycleSeq, Error: r.Error, ThreadID: r.ThreadID,
		TurnID: r.TurnID, OwnerSessionID: r.OwnerSessionID}
}

var idPattern = lazyre.New(`^task_[0-9a-f]{16}$`)

// validate checks a record read from disk under the name wantID and fills
// the defaults of fields older writers may have left out.
func (r *TaskRecord) validate(wantID string) error {
	switch {
	case !idPattern().MatchString(r.ID):
		return fmt.Errorf("task id %q is not task_<16 hex>", r.ID)
	case r.ID != wantID:
		return fmt.Errorf("record id %s does not match its file name %s", r.ID, wantID)
	case !r.Status.valid():
		return fmt.Errorf("unknown task status %q", r.Status)
	case r.CreatedAt.IsZero():
		return fmt.Errorf("created_at is missing")
	}
	if r.SchemaVersion == 0 {
		r.SchemaVersion = SchemaVersion
	}
	r.fillSlices()
	return nil
}

// fillSlices makes every list non-nil so it serialises as [].
func (r *TaskRecord) fillSlices() {
	if r.Checklist.Items == nil {
		r.Checklist.Items = []ChecklistItem{}
	}
	if r.Gates == nil {
		r.Gates = []Gate{}
	}
	if r.Attempts == nil {
		r.Attempts = []json.RawMessage{}
	}
	if r.Artifacts == nil {
		r.Artifacts = []Artifact{}
	}
	if r.GithubEvents == nil {
		r.GithubEvents = []json.RawMessage{}
	}
	if r.ToolCalls == nil {
		r.ToolCalls = []json.RawMessage{}
	}
	if r.Timeline == nil {
		r.Timeline = []TimelineEntry{}
	}
}

// clone returns a deep copy so callers never share the store's slices.
func (r *TaskRecord) clone() TaskRecord {
	c := *r
	c.Checklist.Items = append([]ChecklistItem{}, r.Checklist.Items...)
	c.Gates = append([]Gate{}, r.Gates...)
	c.Attempts = append([]json.RawMessage{}, r.Attempts...)
	c.Artifacts = append([]Artifact{}, r.Artifacts...)
	c.GithubEvents = append([]json.RawMessage{}, r.GithubEvents...)
	c.ToolCalls = append([]json.RawMessage{}, r.ToolCalls...)
	c.Timeline = append([]TimelineEntry{}, r.Timeline...)
	return c
}

// event appends a timeline entry and, for lifecycle transitions, advances
// lifecycle_seq.
func (r *TaskRecord) event(at time.Time, kind, summary string, lifecycle bool) {
	r.Timeline = append(r.Timeline, TimelineEntry{Timestamp: at, Kind: kind, Summary: summary})
	if lifecycle {
		r.LifecycleSeq++
	}
}

// end moves the task to a terminal status at `at`.
func (r *TaskRecord) end(at time.Time, st Status) {
	r.Status = st
	r.EndedAt = &at
	var d int64
	if r.StartedAt != nil {
		d = max(0, at.Sub(*r.StartedAt).Milliseconds())
	}
	r.DurationMS = &d
}

// Summarize keeps at most limit characters of text, dropping control
// characters other than newline and tab; a cut text ends with "...".
func Summarize(text string, limit int) string {
	out := make([]rune, 0, min(len(text), limit+1))
	for _, r := range text {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			continue
		}
		if len(out) == limit {
			return string(out[:limit-3]) + "..."
		}
		out = append(out, r)
	}
	return string(out)
}
