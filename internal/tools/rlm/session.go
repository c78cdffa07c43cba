package rlm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/provider"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// config is a session's configure settings.
type config struct {
	OutputFeedback  string `json:"output_feedback"` // full | metadata
	SubQueryTimeout int    `json:"sub_query_timeout_secs"`
	SubRLMMaxDepth  int    `json:"sub_rlm_max_depth"`
	ShareSession    bool   `json:"share_session"`
}

func defaultConfig() config {
	return config{OutputFeedback: "full", SubQueryTimeout: 120, SubRLMMaxDepth: 2}
}

// source is how a session's content was bound, so a restarted kernel gets
// it back.
type source struct {
	kind   string // file_path, content, url, session_object
	ref    string // the path, url or object name
	path   string // the file the kernel reads it from
	length int
	sha256 string
}

// session is one named Python session.
type session struct {
	name    string
	depth   int
	scratch string
	cfg     config
	src     *source

	mu      sync.Mutex // one operation at a time
	k       *kernel
	lost    string // why the last kernel died, reported once
	evals   int
	queries int
	usage   provider.Usage
}

// usageAdd counts a child query's tokens.
func (s *session) usageAdd(u *provider.Usage) {
	if u != nil {
		s.usage.Add(u)
	}
}

// bind stages data in the scratch dir as the session's content source.
func (s *session) bind(kind, ref string, data []byte) (*source, error) {
	if err := writeScratch(s.scratch, contentFile, data); err != nil {
		return nil, fmt.Errorf("rlm: staging the content: %w", err)
	}
	return newSource(kind, ref, filepath.Join(s.scratch, contentFile), data), nil
}

// contentFile is the staged copy of a session's content in its scratch
// directory.
const contentFile = ".content"

// writeScratch replaces name in the scratch directory with data through
// the confined writer (unsynced: scratch need not survive a crash): the
// kernel may write in its scratch directory, so a link it planted at name
// is replaced, never followed out of it.
func writeScratch(scratch, name string, data []byte) error {
	r, err := confine.OpenRoot(scratch)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = r.WriteScratch(name, data, 0o600)
	return err
}

// newSource describes content read from path; length is the kernel's count
// once bound (it decodes invalid UTF-8 its own way).
func newSource(kind, ref, path string, data []byte) *source {
	sum := sha256.Sum256(data)
	return &source{kind: kind, ref: ref, path: path, length: utf8.RuneCount(data), sha256: hex.EncodeToString(sum[:])}
}

// ensure returns a live kernel, restarting a dead one and re-binding its
// content; restarted says what was lost.
func (s *session) ensure(t *Tool) (restarted string, err error) {
	if s.k != nil && s.k.alive() {
		return "", nil
	}
	why := s.lost
	if s.k != nil && why == "" {
		why = fmt.Sprintf("it exited (%v)", s.k.exitErr)
	}
	py, err := t.interpreter()
	if err != nil {
		return "", err
	}
	k, err := startKernel(py, s.scratch, t.kernelEnv(), t.opts.Start)
	if err != nil {
		return "", err
	}
	s.k, s.lost = k, ""
	if s.src != nil {
		if err := s.rebind(); err != nil {
			return "", err
		}
	}
	if why != "" {
		return fmt.Sprintf("The Python kernel of %q was restarted because %s: every variable and import from earlier evals is gone; "+
			"`content` was bound again from %s.", s.name, why, s.src.describe()), nil
	}
	return "", nil
}

func (src *source) describe() string {
	if src == nil {
		return "nothing (no content was opened)"
	}
	return src.kind + " " + src.ref
}

func (s *session) rebind() error {
	if err := s.k.write(frame{Op: "bind", ID: 1, Path: s.src.path}); err != nil {
		return err
	}
	f, ok := <-s.k.frames
	if !ok {
		return fmt.Errorf("rlm: the kernel died while binding content: %v", s.k.readErr)
	}
	if f.Op != "bound" {
		return fmt.Errorf("rlm: binding content failed: %s", f.Error)
	}
	s.src.length = f.Length
	return nil
}

// evalOutcome is what one eval produced.
type evalOutcome struct {
	status         string // ok, error, interrupted, timeout
	stdout, stderr string
	err            *evalError
	final          *finalValue
	restarted      string
	queries        int
	usage          provider.Usage
	duration       time.Duration
}

// eval runs code, serving the kernel's child queries until its result. A
// timeout or a cancelled ctx interrupts the code (the kernel survives); a
// kernel that ignores the interrupt is killed and restarted next time.
func (s *session) eval(ctx context.Context, t *Tool, code string, timeout time.Duration) (evalOutcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	restarted, err := s.ensure(t)
	if err != nil {
		return evalOutcome{}, err
	}
	start := time.Now()
	out := evalOutcome{restarted: restarted}
	s.evals++
	if err := s.k.write(frame{Op: "eval", ID: s.evals, Code: code}); err != nil {
		return out, err
	}
	qctx, cancelQueries := context.WithCancel(ctx)
	defer cancelQueries()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var pending sync.WaitGroup
	var qmu sync.Mutex
	open := map[int]bool{}
	reply := func(id int, result any, qerr error) {
		qmu.Lock()
		if !open[id] {
			qmu.Unlock()
			return
		}
		delete(open, id)
		qmu.Unlock()
		f := frame{Op: "reply", For: id, Result: result}
		if qerr != nil {
			f.Error, _ = json.Marshal(qerr.Error())
		}
		_ = s.k.write(f)
	}
	stop := func(why string) {
		if out.status == "" {
			out.status = why
		}
		cancelQueries()
		qmu.Lock()
		ids := make([]int, 0, len(open))
		for id := range open {
			ids = append(ids, id)
		}
		qmu.Unlock()
		for _, id := range ids {
			reply(id, nil, errors.New("cancelled: the eval was interrupted"))
		}
		s.k.interrupt()
	}
	var interruptedAt <-chan time.Time
	for {
		select {
		case f, ok := <-s.k.frames:
			if !ok {
				s.lost = "it exited during an eval (" + errText(s.k.readErr) + ")"
				return out, fmt.Errorf("rlm: the Python kernel of %q died during the eval (%v); the next call restarts it", s.name, s.k.readErr)
			}
			if f.Op == "result" {
				pending.Wait()
				out.duration = time.Since(start)
				if out.status == "" || f.Status == "error" {
					out.status = f.Status
				}
				out.stdout, out.stderr, out.final = f.Stdout, f.Stderr, f.Final
				if len(f.Error) > 0 && string(f.Error) != "null" {
					var e evalError
					_ = json.Unmarshal(f.Error, &e)
					out.err = &e
				}
				return out, nil
			}
			qmu.Lock()
			open[f.ID] = true
			qmu.Unlock()
			out.queries++
			pending.Add(1)
			go func() {
				defer pending.Done()
				result, usage, qerr := t.serve(qctx, s, f)
				qmu.Lock()
				s.usageAdd(&usage)
				out.usage.Add(&usage)
				qmu.Unlock()
				reply(f.ID, result, qerr)
			}()
		case <-deadline.C:
			stop("timeout")
			interruptedAt = time.After(3 * time.Second)
		case <-ctx.Done():
			stop("interrupted")
			interruptedAt = time.After(3 * time.Second)
			ctx = context.Background() // fire once
		case <-interruptedAt:
			s.lost = "it did not stop within 3 s of an interrupt"
			s.k.kill()
			return out, fmt.Errorf("rlm: the eval of %q did not stop when interrupted, so its kernel was killed; the next call restarts it and its state is lost", s.name)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// close ends the session's kernel.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.k != nil {
		s.k.close()
	}
	os.RemoveAll(s.scratch)
}

func preview(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
