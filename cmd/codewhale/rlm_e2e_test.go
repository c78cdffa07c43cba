package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale/codewhale/internal/testutil/e2e"
	"github.com/codewhale/codewhale/internal/testutil/fakemodel"
)

// The model loads rlm through tool_search, opens a workspace log without
// its body entering the transcript, and fans 16 child queries out from
// Python: the fake model sees 16 tool-less requests at once, the answers
// come back in slot order, and their tokens are counted.
func TestExecRLMBatchOverALog(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed")
	}
	steps := []fakemodel.Reply{
		fakemodel.Tools(fakemodel.Call{ID: "s", Name: "tool_search", Args: `{"query":"python large file"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "o", Name: "rlm", Args: `{"action":"open","name":"log","file_path":"app.log"}`}),
		fakemodel.Tools(fakemodel.Call{ID: "e", Name: "rlm", Args: `{"action":"eval","name":"log","code":` +
			`"lines = content.splitlines()\nparts = [chr(10).join(lines[i::16]) for i in range(16)]\n` +
			`r = sub_query_batch('count errors', parts)\nprint(len(r), r[0], r[15])"}`}),
		fakemodel.Text("Done."),
	}
	var agentStep atomic.Int32
	var mu sync.Mutex
	arrived, peak, inFlight := 0, 0, 0
	all := make(chan struct{})
	srv := fakemodel.New(t)
	srv.Respond(func(r *fakemodel.Request) fakemodel.Reply {
		if r.ToolNames() != nil {
			return steps[min(int(agentStep.Add(1))-1, len(steps)-1)]
		}
		mu.Lock()
		arrived++
		inFlight++
		peak = max(peak, inFlight)
		if arrived == 16 {
			close(all)
		}
		mu.Unlock()
		select { // a barrier: every child waits until all 16 are in flight
		case <-all:
		case <-time.After(10 * time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		msgs := r.Messages()
		user, _ := msgs[len(msgs)-1]["content"].(string)
		slot := "?"
		if i := strings.Index(user, "line "); i >= 0 {
			slot = strings.Fields(user[i:])[1]
		}
		return fakemodel.Reply{Text: "slot-" + slot, Usage: &fakemodel.Usage{Prompt: 50, Completion: 5}}
	})
	c := newCLI(t, srv)
	var log strings.Builder
	for i := 0; i < 16*40; i++ {
		log.WriteString("line " + strconv.Itoa(i) + " ok\n")
	}
	if err := os.WriteFile(filepath.Join(c.ws, "app.log"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("exec", "--auto", "--output-format", "stream-json", "how many errors are in app.log?")
	if code != 0 {
		t.Fatalf("code %d: %s\n%s", code, out, errOut)
	}
	mu.Lock()
	gotPeak := peak
	mu.Unlock()
	if gotPeak != 16 {
		t.Errorf("%d child requests were in flight at once, want 16", gotPeak)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if !last.HasToolResult(`16 slot-0 slot-15`) {
		t.Errorf("batch answers not in slot order: %s", last.Raw)
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Raw), "line 300 ok") && r.ToolNames() != nil {
			t.Fatal("the opened file's body reached the parent transcript")
		}
	}
	if strings.Count(out, `"child":true`) != 1 || !strings.Contains(out, `"input_tokens":800`) {
		t.Errorf("child usage not reported: %s", out)
	}
}

// rlm's open of a url takes the Web fetch's policy: a loopback page needs
// an explicit approval, so a headless run holds the open — --auto too — and
// the page never reaches the kernel; once [network] allow_private lists
// the server, the page is opened, and its length, preview and digest come
// back.
func TestExecRLMOpenOfALoopbackURLNeedsApproval(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		e2e.Missing(t, "python3 is not installed")
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("internal admin page"))
	}))
	defer page.Close()
	open := `{"action":"open","name":"p","url":"` + page.URL + `/admin"}`
	for _, run := range []struct {
		name   string
		auto   bool
		listed bool // [network] allow_private names the page's server
	}{{"headless", false, false}, {"--auto", true, false}, {"allow_private", true, true}} {
		srv := fakemodel.New(t,
			fakemodel.Tools(fakemodel.Call{ID: "o", Name: "rlm", Args: open}),
			fakemodel.Text("Done."))
		c := newCLI(t, srv)
		if run.listed {
			c.config("[network]\nallow_private = [\"" + strings.TrimPrefix(page.URL, "http://") + "\"]\n")
		}
		args := []string{"exec", "--output-format", "stream-json", "--max-turns", "3", "open the admin page"}
		if run.auto {
			args = append([]string{"exec", "--auto"}, args[1:]...)
		}
		out, errOut, _ := c.run(args...)
		reqs := srv.Requests()
		if len(reqs) < 2 {
			t.Fatalf("%s: %d requests: %s\n%s", run.name, len(reqs), out, errOut)
		}
		switch {
		case !run.listed && (!reqs[1].HasToolResult("needs explicit approval") || !strings.Contains(out, "approval_required")):
			t.Errorf("%s: the loopback open was not held for approval: %s", run.name, reqs[1].Raw)
		case run.listed && !reqs[1].HasToolResult(`"length":19`):
			t.Errorf("%s: the listed open did not read the page: %s", run.name, reqs[1].Raw)
		}
		if reqs[1].HasToolResult("internal admin page") && !run.listed {
			t.Errorf("%s: the page reached the model without approval", run.name)
		}
	}
}
