package mcp

import (
	"context"
	"fmt"
	"sort"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxListed bounds how many resources, templates or prompts are kept of one
// server's listing; a server that pages on past it is cut and the cut is
// stated.
const MaxListed = 500

// serverLists is what a connected server offers besides tools: its
// resources, resource templates and prompts, listed when it connects and
// again when it says they changed. Err is the last listing failure (a
// server that advertises a capability and then fails the method).
type serverLists struct {
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
	prompts   []*sdk.Prompt
	truncated bool
	err       string
	// promptsFailed: prompts/list failed at the last listing, so the
	// prompts helper asks the server again and reports its answer.
	promptsFailed bool
}

// caps are the capabilities a connected server advertised; never nil.
func capsOf(init *sdk.InitializeResult) *sdk.ServerCapabilities {
	if init == nil || init.Capabilities == nil {
		return &sdk.ServerCapabilities{}
	}
	return init.Capabilities
}

// fetchLists lists the resources, templates and prompts a server advertises.
// A failing listing does not fail the connection: the server's tools still
// work, and the failure is kept as the server's last error.
func fetchLists(ctx context.Context, sess *sdk.ClientSession) serverLists {
	var out serverLists
	caps := capsOf(sess.InitializeResult())
	var errs []string
	if caps.Resources != nil {
		res, cut, err := collect(sess.Resources(ctx, nil), func(r *sdk.Resource) bool { return r != nil && r.URI != "" })
		out.resources, out.truncated = res, out.truncated || cut
		if err != nil {
			errs = append(errs, fmt.Sprintf("resources/list: %v", err))
		}
		tpl, cut, err := collect(sess.ResourceTemplates(ctx, nil), func(r *sdk.ResourceTemplate) bool { return r != nil && r.URITemplate != "" })
		out.templates, out.truncated = tpl, out.truncated || cut
		if err != nil && !methodNotFound(err) {
			// Templates are optional within the resources capability.
			errs = append(errs, fmt.Sprintf("resources/templates/list: %v", err))
		}
	}
	if caps.Prompts != nil {
		pr, cut, err := collect(sess.Prompts(ctx, nil), func(p *sdk.Prompt) bool { return p != nil && p.Name != "" })
		sort.Slice(pr, func(i, j int) bool { return pr[i].Name < pr[j].Name })
		out.prompts, out.truncated = pr, out.truncated || cut
		if err != nil {
			out.promptsFailed = true
			errs = append(errs, fmt.Sprintf("prompts/list: %v", err))
		}
	}
	if len(errs) > 0 {
		out.err = fmt.Sprintf("the server advertised a capability it did not serve: %s", joinShort(errs))
	}
	return out
}

// collect pages through a listing, keeping at most MaxListed good items.
func collect[T any](seq func(func(T, error) bool), ok func(T) bool) ([]T, bool, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return out, false, err
		}
		if !ok(item) {
			continue
		}
		if len(out) == MaxListed {
			return out, true, nil
		}
		out = append(out, item)
	}
	return out, false, nil
}

func joinShort(errs []string) string {
	msg := ""
	for i, e := range errs {
		if i > 0 {
			msg += "; "
		}
		msg += e
	}
	s, _ := bound(msg, 1000)
	return s
}

// setLists replaces the listings after a list_changed of connection c.
func (s *server) setLists(c *conn, l serverLists) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != c.gen || s.state != StateConnected {
		return false
	}
	s.lists = l
	return true
}

// offers is what a connected server advertised, for the helper tools.
type offers struct {
	resources, prompts bool
}

func (s *server) offers() offers {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.visibleLocked() {
		return offers{}
	}
	caps := capsOf(s.init)
	return offers{resources: caps.Resources != nil, prompts: caps.Prompts != nil}
}

// snapshotLists returns the listings while connected.
func (s *server) snapshotLists() serverLists {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.visibleLocked() {
		return serverLists{}
	}
	return s.lists
}
