package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale/codewhale/internal/logfile"
)

// sessionsCheck looks at $CODEWHALE_HOME/sessions: it exists or can be
// made, it is writable, and how much it holds.
func sessionsCheck(r *Report, home string) {
	if home == "" {
		return
	}
	dir := filepath.Join(home, "sessions")
	c := Check{Name: "sessions", Status: OK, Data: map[string]any{"dir": dir}}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Detail = dir + " (not created yet; the first session makes it)"
		r.add(c)
		return
	case err != nil:
		c.Status, c.Detail = Fail, err.Error()
		r.add(c)
		return
	case !info.IsDir():
		c.Status, c.Detail = Fail, dir+" is not a directory"
		c.Fix = "move it away; codewhale keeps its sessions there"
		r.add(c)
		return
	}
	probe, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		c.Status, c.Detail = Fail, "not writable: "+err.Error()
		c.Fix = "fix the permissions of " + dir
		r.add(c)
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	files, bytes := 0, int64(0)
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if strings.HasSuffix(d.Name(), ".jsonl") {
			files++
		}
		if fi, err := d.Info(); err == nil {
			bytes += fi.Size()
		}
		return nil
	})
	c.Detail = fmt.Sprintf("%s: %d session file(s), %.1f MB, writable", dir, files, float64(bytes)/1e6)
	c.Data["files"], c.Data["bytes"] = files, bytes
	r.add(c)
}

// logCheck names the diagnostic log (internal/logfile): where to look, and
// where --debug adds request metadata.
func logCheck(r *Report, home string) {
	if home == "" {
		return
	}
	path := logfile.Path(home)
	c := Check{Name: "log", Status: OK, Detail: path + " (--debug adds request metadata; --debug=bodies the bodies)",
		Data: map[string]any{"path": path}}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Detail = path + " (not written yet; --debug adds request metadata)"
	}
	r.add(c)
}
