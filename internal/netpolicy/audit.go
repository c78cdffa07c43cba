package netpolicy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AuditLog appends one JSON line per network call to a file
// ([network] audit = true writes $CODEWHALE_HOME/audit.log). Writes are
// best-effort: a failing audit log never fails the call it records.
type AuditLog struct {
	Path string
	mu   sync.Mutex
}

// Entry is one audited call.
type Entry struct {
	Time     time.Time `json:"ts"`
	Tool     string    `json:"tool"`
	Action   string    `json:"action,omitempty"`
	URL      string    `json:"url,omitempty"`
	Host     string    `json:"host,omitempty"`
	Decision string    `json:"decision"`
	Status   int       `json:"status,omitempty"`
	Bytes    int64     `json:"bytes,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Record appends e. A nil log records nothing.
func (a *AuditLog) Record(e Entry) {
	if a == nil || a.Path == "" {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_ = os.MkdirAll(filepath.Dir(a.Path), 0o700)
	f, err := os.OpenFile(a.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}
