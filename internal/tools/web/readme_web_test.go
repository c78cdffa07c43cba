package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// README.md "Web and GitHub": fetch reads at most max_bytes, 1 MB by default
// and never more than 10 MiB whatever the call asks.
func TestREADMEFetchMaxBytesIsCappedAt10MiB(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(12<<20))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < (12<<20)/len(chunk); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	tool := newTool(loopbackAllowed(), SearchConfig{})
	for _, c := range []struct {
		extra string
		want  int64
	}{{``, 1_000_000}, {`,"max_bytes":2000`, 2000}, {`,"max_bytes":50000000`, 10 << 20}} {
		res, _, err := call(t, tool, `{"action":"fetch","url":"`+srv.URL+`"`+c.extra+`}`)
		f := decode[Fetched](t, res)
		if err != nil || !f.Truncated || int64(f.BytesRead) != c.want {
			t.Errorf("%q: read %d bytes (truncated %v), want %d: %v", c.extra, f.BytesRead, f.Truncated, c.want, err)
		}
	}
}
