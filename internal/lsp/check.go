package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"github.com/codewhale/codewhale/internal/secrets"
	"github.com/codewhale/codewhale/internal/tools/confine"
)

// Change is one file a call changed: its absolute path, its text before
// (nil: unknown, or the file is new) and after, or that it was deleted.
type Change struct {
	Path          string
	Before, After []byte
	Deleted       bool
}

// check is one file to look at with its server.
type check struct {
	Change
	r    resolved
	lang string
}

// Changed syncs the changed files to their servers, waits for their
// diagnostics (at most Wait in all, returning as soon as every server has
// answered) and renders the problems the change introduced (render). A
// change to files no server takes returns "" at once.
func (m *Manager) Changed(ctx context.Context, changes []Change) string {
	var checks []check
	for _, ch := range changes {
		if r, lang, ok := m.route(ch.Path); ok && len(ch.After) <= maxSyncBytes {
			checks = append(checks, check{Change: ch, r: r, lang: lang})
		}
	}
	if len(checks) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	reports := make([]fileReport, len(checks))
	var wg sync.WaitGroup
	for i, ck := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = m.diagnose(ctx, ck)
		}()
	}
	wg.Wait()
	return m.render(reports)
}

// diagnose checks one changed file.
func (m *Manager) diagnose(ctx context.Context, ck check) fileReport {
	rep := fileReport{server: ck.r.srv.Name, path: m.display(ck.Path)}
	c, err := m.client(ck.r, m.root(ck.r.srv, ck.Path))
	if err != nil {
		rep.why = err.Error()
		return rep
	}
	if why := m.awaitReady(ctx, c); why != "" {
		rep.why = why
		return rep
	}
	uri := protocol.URIFromPath(ck.Path)
	if ck.Deleted {
		c.close(ctx, uri)
		return fileReport{}
	}
	base, baseText := m.baseline(ctx, c, uri, ck)
	after := string(ck.After)
	s, err := c.sync(ctx, uri, ck.lang, after)
	if err != nil {
		rep.why = m.failure(c, err)
		return rep
	}
	if s.same && base != nil {
		return fileReport{} // the server already judged this text
	}
	p := m.await(ctx, c, uri, s)
	switch {
	case p == nil:
		rep.why = m.failure(c, ctx.Err())
	case p.flood > 0:
		rep.why = fmt.Sprintf("it sent %d diagnostics for %s, over the %d a file may have", p.flood, rep.path, maxPerURI)
	default:
		items, old := m.fresh(base, baseText, p.items, after)
		rep.old = old
		c.mu.Lock()
		enc := c.caps.encoding
		c.mu.Unlock()
		for _, d := range items {
			rep.items = append(rep.items, convert(d, rep.path, after, enc))
		}
	}
	return rep
}

// awaitReady waits, within ctx, for c to have started; "" once it is
// ready, else why there will be no diagnostics.
func (m *Manager) awaitReady(ctx context.Context, c *client) string {
	select {
	case <-c.ready:
	case <-ctx.Done():
		return fmt.Sprintf("it is still starting after %v; later edits will be checked", m.opts.Wait)
	}
	if state, _ := c.status(); state != StateReady {
		return m.failure(c, nil) // waits for the reason the process ended
	}
	return ""
}

// baseline is what the server said of the file before the change, and the
// text it judged: the open document's last report; else a report it gave
// unasked (gopls reports on the whole workspace); else, when the old text
// is known, what it says of that text when opened, waiting at most half
// of what is left. Nil when nothing is known (then every problem is new).
func (m *Manager) baseline(ctx context.Context, c *client, uri protocol.DocumentURI, ck check) ([]protocol.Diagnostic, string) {
	if text, open := c.text(uri); open {
		if p := c.diags.get(uri); p != nil {
			return nonNil(p.items), text
		}
		return nil, ""
	}
	if ck.Before == nil {
		if p := c.diags.get(uri); p != nil {
			return nonNil(p.items), string(ck.After)
		}
		return nil, ""
	}
	before := string(ck.Before)
	if p := c.diags.get(uri); p != nil {
		return nonNil(p.items), before
	}
	s, err := c.sync(ctx, uri, ck.lang, before)
	if err != nil {
		return nil, ""
	}
	half := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		half, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(d)/2))
		defer cancel()
	}
	if p := m.await(half, c, uri, s); p != nil && p.flood == 0 {
		return nonNil(p.items), before
	}
	return nil, ""
}

func nonNil(ds []protocol.Diagnostic) []protocol.Diagnostic {
	if ds == nil {
		return []protocol.Diagnostic{}
	}
	return ds
}

// await is the server's report on uri after sync s: pulled when the server
// offers textDocument/diagnostic, else the first set it publishes for that
// version. Nil when ctx ends or the server stops first.
func (m *Manager) await(ctx context.Context, c *client, uri protocol.DocumentURI, s synced) *published {
	c.mu.Lock()
	pull := c.caps.pull
	c.mu.Unlock()
	if pull {
		p, err := c.pull(ctx, uri, s.version)
		if err != nil {
			return nil
		}
		return p
	}
	return c.diags.wait(ctx, uri, s.before, s.version, c.settled)
}

// failure says why a ready server gave nothing: it stopped, or err (a
// timeout: it did not report in time).
func (m *Manager) failure(c *client, err error) string {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		// The connection ended: give its watch a moment to say why.
		t := time.NewTimer(time.Second)
		select {
		case <-c.settled:
		case <-t.C:
		}
		t.Stop()
	}
	if state, why := c.status(); state != StateReady {
		return state + ": " + why
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Sprintf("it did not report within %v", m.opts.Wait)
	}
	if err == nil {
		return "it did not report"
	}
	return err.Error()
}

// ChangedOnDisk checks files a command changed (a Bash or Run call the
// checkpoints saw change them; paths absolute) in the background; Notices
// collects what it found. Their old text is unknown, so a file no server
// had reported on before has every problem listed as new.
func (m *Manager) ChangedOnDisk(paths []string) {
	var changes []Change
	for _, p := range paths {
		if _, _, ok := m.route(p); !ok {
			continue
		}
		if _, secret := secrets.IsSecretPath(p); secret {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			changes = append(changes, Change{Path: p, Deleted: true})
			continue
		}
		// Through the boundary: a link planted by the command that changed
		// the file never sends an outside file to the server.
		data, fi, err := confine.ReadFile([]string{m.opts.Workspace}, p, maxSyncBytes+1)
		if err == nil && fi.Size() <= maxSyncBytes {
			changes = append(changes, Change{Path: p, After: data})
		}
	}
	if len(changes) == 0 {
		return
	}
	m.mu.Lock()
	if m.diskPending == 0 {
		m.diskIdle = make(chan struct{})
	}
	m.diskPending++
	m.mu.Unlock()
	if !m.spawn(func() { m.noteDisk(m.Changed(context.Background(), changes)) }) {
		m.noteDisk("")
	}
}

// noteDisk keeps one background check's report and marks it finished.
func (m *Manager) noteDisk(text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if text != "" {
		m.notes = append(m.notes, text)
	}
	if m.diskPending--; m.diskPending == 0 {
		close(m.diskIdle)
	}
}

// Notices waits (within ctx) for the checks ChangedOnDisk started and
// returns what they found, once: "" when nothing.
func (m *Manager) Notices(ctx context.Context) string {
	if !m.Enabled() {
		return ""
	}
	m.mu.Lock()
	idle := m.diskIdle
	m.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
		}
	}
	m.mu.Lock()
	notes := m.notes
	m.notes = nil
	m.mu.Unlock()
	if len(notes) == 0 {
		return ""
	}
	return "Files a command changed were checked by their language servers:\n" + strings.Join(notes, "\n")
}
