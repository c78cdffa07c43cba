package logfile_test

import (
	"path/filepath"
	"testing"

	"github.com/codewhale/codewhale/internal/logfile"
)

// README.md "Command line": every command logs to $CODEWHALE_HOME/logs/codewhale.log, rotated at 5 MiB with three old
// files kept (the rotation itself: TestRotatesBySize; the redactor: TestRecordsAreRedacted).
func TestREADMELogFileDefaults(t *testing.T) {
	t.Parallel()
	if logfile.DefaultMaxBytes != 5<<20 || logfile.DefaultKeep != 3 {
		t.Errorf("rotation at %d bytes keeping %d files, README.md says 5 MiB and three", logfile.DefaultMaxBytes, logfile.DefaultKeep)
	}
	if got, want := logfile.Path("/h"), filepath.Join("/h", "logs", "codewhale.log"); got != want {
		t.Errorf("log path %q, want %q", got, want)
	}
}
