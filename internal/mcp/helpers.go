package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/tools"
)

// The resource and prompt helpers (CONTRACT.md §4.7): eager, read-only,
// approval Auto, registered exactly while a connected server advertises the
// capability they serve.
const (
	HelperListResources = "list_mcp_resources"
	HelperListTemplates = "list_mcp_resource_templates"
	HelperReadResource  = "read_mcp_resource"
	HelperGetPrompt     = "mcp_get_prompt"
)

// MaxResourceBytes bounds one resources/read: a larger resource (by its
// listed size, or by what arrived) is refused with its size, not shown.
const MaxResourceBytes = 8 << 20

// helperSpecs are the helpers' names, descriptions and schemas.
var helperSpecs = map[string]tools.Spec{
	HelperListResources: {Desc: "List the resources connected MCP servers offer (uri, name, MIME type, size). " +
		"Pass server to list one server's. Read one with read_mcp_resource.",
		Schema: objectSchema(map[string]any{"server": str("The MCP server's name; omit for every server that offers resources.")})},
	HelperListTemplates: {Desc: "List the URI templates of resources connected MCP servers can produce. " +
		"Fill a template's variables and read the URI with read_mcp_resource.",
		Schema: objectSchema(map[string]any{"server": str("The MCP server's name; omit for every server that offers resources.")})},
	HelperReadResource: {Desc: "Read one resource of an MCP server by its URI. Text comes back inline; binary " +
		"content is described by size and MIME type, not shown. The content comes from the server, not the workspace.",
		Schema: objectSchema(map[string]any{"server": str("The MCP server's name."), "uri": str("The resource URI.")}, "server", "uri")},
	HelperGetPrompt: {Desc: "Get a prompt an MCP server offers, with its arguments filled in; omit name to list " +
		"the server's prompts and their arguments.",
		Schema: objectSchema(map[string]any{"server": str("The MCP server's name."), "name": str("The prompt's name; omit to list them."),
			"arguments": map[string]any{"type": "object", "description": "The prompt's arguments (string values).",
				"additionalProperties": map[string]any{"type": "string"}}}, "server")},
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func objectSchema(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

// helper is one of the resource and prompt helper tools.
type helper struct {
	tools.Spec
	pool *Pool
}

func newHelper(p *Pool, name string) *helper {
	spec := helperSpecs[name]
	spec.ToolName, spec.Approve, spec.ReadOnly, spec.Deferred = name, tools.Auto, true, false
	spec.Caps = []tools.Capability{tools.CapNetwork}
	return &helper{Spec: spec, pool: p}
}

// helperNames are the helpers the offers call for, sorted.
func helperNames(o offers) []string {
	var out []string
	if o.resources {
		out = append(out, HelperListResources, HelperListTemplates, HelperReadResource)
	}
	if o.prompts {
		out = append(out, HelperGetPrompt)
	}
	return out
}

type helperInput struct {
	Server    string            `json:"server"`
	URI       string            `json:"uri"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
}

func (h *helper) Execute(ctx context.Context, tc *tools.Context, raw json.RawMessage) (tools.Result, error) {
	var in helperInput
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &in); err != nil {
			return tools.Result{}, tools.InvalidInput("%s: %v", h.ToolName, err)
		}
	}
	var (
		res tools.Result
		err error
	)
	switch h.ToolName {
	case HelperListResources:
		res, err = h.pool.listing(ctx, in.Server, false)
	case HelperListTemplates:
		res, err = h.pool.listing(ctx, in.Server, true)
	case HelperReadResource:
		res, err = h.pool.ReadResource(ctx, in.Server, in.URI)
	case HelperGetPrompt:
		if in.Name == "" {
			res, err = h.pool.promptList(ctx, in.Server)
		} else {
			var text string
			text, err = h.pool.GetPrompt(ctx, in.Server, in.Name, in.Arguments)
			res = tools.Result{Content: text, Success: true, Metadata: map[string]any{"mcp_server": in.Server, "mcp_prompt": in.Name}}
		}
	}
	return tools.Sized(res, err, tc, "ask the server for a narrower resource or a single server's list")
}

// offering returns the connected servers that advertise the capability
// (resources when !prompts), or the one named, with a clear error when it
// does not.
func (p *Pool) offering(name string, prompts bool) ([]*server, *conn, error) {
	kind := "resources"
	if prompts {
		kind = "prompts"
	}
	has := func(s *server) bool {
		o := s.offers()
		return (prompts && o.prompts) || (!prompts && o.resources)
	}
	if name == "" {
		var out []*server
		for _, s := range p.pick(nil) {
			if has(s) {
				out = append(out, s)
			}
		}
		return out, nil, nil
	}
	s := p.lookup(name)
	if s == nil {
		return nil, nil, tools.InvalidInput("no MCP server named '%s' is configured", shortURI(name))
	}
	s = p.firstUse(s)
	c, err := s.live()
	if err != nil {
		return nil, nil, tools.ExecutionFailed("%v", err)
	}
	if !has(s) {
		return nil, nil, tools.InvalidInput("MCP server '%s' does not offer %s", name, kind)
	}
	return []*server{s}, c, nil
}

// firstUse connects a lazy server that has not started yet (bounded by its
// connect timeout) and returns its current state.
func (p *Pool) firstUse(s *server) *server {
	if !s.cfg.Lazy() || s.status().State != StatePending {
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeouts.Connect+time.Second)
	defer cancel()
	p.Start(ctx, s.cfg.Name)
	if fresh := p.lookup(s.cfg.Name); fresh != nil {
		return fresh
	}
	return s
}

// resourceEntry is one listed resource or template as the model sees it.
type resourceEntry struct {
	Server      string `json:"server"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// listing lists resources (or templates) live, server by server; a server
// that fails is reported in "errors" and the others still answer.
func (p *Pool) listing(ctx context.Context, name string, templates bool) (tools.Result, error) {
	list, _, err := p.offering(name, false)
	if err != nil {
		return tools.Result{}, err
	}
	out := struct {
		Resources []resourceEntry `json:"resources,omitempty"`
		Templates []resourceEntry `json:"resourceTemplates,omitempty"`
		Truncated []string        `json:"truncated,omitempty"`
		Errors    []string        `json:"errors,omitempty"`
	}{}
	for _, s := range list {
		c, err := s.live()
		if err != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%s: %v", s.cfg.Name, err))
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, s.timeouts.Read)
		var cut bool
		if templates {
			var got []*sdk.ResourceTemplate
			got, cut, err = collect(c.sess.ResourceTemplates(cctx, nil), func(r *sdk.ResourceTemplate) bool { return r != nil && r.URITemplate != "" })
			for _, r := range got {
				out.Templates = append(out.Templates, resourceEntry{Server: s.cfg.Name, URITemplate: r.URITemplate, Name: r.Name,
					Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
			}
		} else {
			var got []*sdk.Resource
			got, cut, err = collect(c.sess.Resources(cctx, nil), func(r *sdk.Resource) bool { return r != nil && r.URI != "" })
			for _, r := range got {
				out.Resources = append(out.Resources, resourceEntry{Server: s.cfg.Name, URI: r.URI, Name: r.Name,
					Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
			}
		}
		cancel()
		if err != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%s: %s", s.cfg.Name, p.methodFailure(ctx, s, c, err)))
		}
		if cut {
			out.Truncated = append(out.Truncated, fmt.Sprintf("%s: only the first %d are listed", s.cfg.Name, MaxListed))
		}
	}
	b, _ := json.Marshal(out)
	return tools.Result{Content: string(b), Success: len(out.Errors) == 0 || len(out.Resources)+len(out.Templates) > 0,
		Metadata: map[string]any{"servers": len(list)}}, nil
}

// ResourceContent is what one resources/read returned, bounded: text
// contents inline, binary contents by size and MIME type only.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     *Blob  `json:"blob,omitempty"`
}

// Blob describes binary resource content without its bytes.
type Blob struct {
	Size     int    `json:"size"`
	MIMEType string `json:"mimeType"`
	Note     string `json:"note"`
}

// ReadResource runs resources/read on server within its read timeout.
func (p *Pool) ReadResource(ctx context.Context, name, uri string) (tools.Result, error) {
	if name == "" || uri == "" {
		return tools.Result{}, tools.InvalidInput("read_mcp_resource needs server and uri")
	}
	contents, err := p.Resource(ctx, name, uri)
	if err != nil {
		return tools.Result{}, err
	}
	out := struct {
		Server   string            `json:"server"`
		Source   string            `json:"source"`
		Contents []ResourceContent `json:"contents"`
	}{Server: name, Source: "mcp server '" + name + "' (not the workspace)", Contents: contents}
	b, _ := json.Marshal(out)
	return tools.Result{Content: string(b), Success: true, Metadata: map[string]any{"mcp_server": name, "uri": uri}}, nil
}

// Resource reads uri from server and bounds it (MaxResourceBytes); the UI's
// @server:uri mentions use it too.
func (p *Pool) Resource(ctx context.Context, name, uri string) ([]ResourceContent, error) {
	list, c, err := p.offering(name, false)
	if err != nil {
		return nil, err
	}
	s := list[0]
	for _, r := range s.snapshotLists().resources {
		if r.URI == uri && r.Size > MaxResourceBytes {
			return nil, tools.ExecutionFailed("MCP resource %s on server '%s' is %s, more than the %s codewhale reads; not read",
				shortURI(uri), name, sizeText(r.Size), sizeText(MaxResourceBytes))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeouts.Read)
	defer cancel()
	res, err := c.sess.ReadResource(cctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, tools.ExecutionFailed("MCP resources/read of %s on server '%s' failed: %s", shortURI(uri), name, p.methodFailure(ctx, s, c, err))
	}
	total := 0
	for _, rc := range res.Contents {
		if rc != nil {
			total += len(rc.Text) + len(rc.Blob)
		}
	}
	if total > MaxResourceBytes {
		return nil, tools.ExecutionFailed("MCP resource %s on server '%s' is %s, more than the %s codewhale reads; not shown",
			shortURI(uri), name, sizeText(int64(total)), sizeText(MaxResourceBytes))
	}
	var out []ResourceContent
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		item := ResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text}
		if rc.Blob != nil {
			mime := rc.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			item.Blob = &Blob{Size: len(rc.Blob), MIMEType: mime, Note: "binary content is not shown to the model"}
		}
		out = append(out, item)
	}
	return out, nil
}

// methodFailure explains a failed request: the timeout, a dropped
// connection (the server is marked failed), or the server's error.
func (p *Pool) methodFailure(ctx context.Context, s *server, c *conn, err error) string {
	switch {
	case ctx.Err() != nil:
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within the read timeout (%s)", secs(s.timeouts.Read))
	case lostConnection(err) || errors.Is(err, sdk.ErrSessionMissing):
		p.markLost(s, c, err)
		return fmt.Sprintf("the server stopped during the request (%v); restart it with `/mcp reload %s`", err, s.cfg.Name)
	case frameTooLarge(err):
		p.markLost(s, c, err)
		return fmt.Sprintf("the server's answer is larger than the %s one stdio message may be; not read, and the connection was closed (restart it with `/mcp reload %s`)",
			sizeText(sdk.DefaultMaxLineLength), s.cfg.Name)
	case methodNotFound(err):
		return "the server advertised this capability but does not serve the method (" + err.Error() + ")"
	}
	msg, _ := bound(err.Error(), 2000)
	return msg
}

// frameTooLarge reports the SDK's refusal of an oversized stdio message
// (its error value is not exported).
func frameTooLarge(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded the configured maximum line length")
}

func methodNotFound(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}

// shortURI bounds a model-chosen URI or name quoted in an error.
func shortURI(s string) string {
	if len(s) <= 200 {
		return s
	}
	cut := 200
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// PromptInfo describes one prompt a server offers.
type PromptInfo struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

func promptInfos(list []*sdk.Prompt) []PromptInfo {
	out := make([]PromptInfo, 0, len(list))
	for _, pr := range list {
		info := PromptInfo{Name: pr.Name, Description: pr.Description}
		for _, a := range pr.Arguments {
			if a != nil {
				info.Arguments = append(info.Arguments, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, info)
	}
	return out
}

// promptList lists server name's prompts as listed at connect (or on
// list_changed); when that listing failed, the server is asked again, so a
// server that advertised prompts and does not serve prompts/list says so
// (CONTRACT.md §4.7) instead of listing none.
func (p *Pool) promptList(ctx context.Context, name string) (tools.Result, error) {
	if name == "" {
		return tools.Result{}, tools.InvalidInput("mcp_get_prompt needs server")
	}
	list, c, err := p.offering(name, true)
	if err != nil {
		return tools.Result{}, err
	}
	s := list[0]
	l := s.snapshotLists()
	prompts := l.prompts
	if l.promptsFailed {
		cctx, cancel := context.WithTimeout(ctx, s.timeouts.Read)
		prompts, _, err = collect(c.sess.Prompts(cctx, nil), func(pr *sdk.Prompt) bool { return pr != nil && pr.Name != "" })
		cancel()
		if err != nil {
			return tools.Result{}, tools.ExecutionFailed("MCP prompts/list on server '%s' failed: %s", name, p.methodFailure(ctx, s, c, err))
		}
		sort.Slice(prompts, func(i, j int) bool { return prompts[i].Name < prompts[j].Name })
	}
	b, _ := json.Marshal(map[string]any{"server": name, "prompts": promptInfos(prompts)})
	return tools.Result{Content: string(b), Success: true, Metadata: map[string]any{"mcp_server": name}}, nil
}

// GetPrompt runs prompts/get and renders the messages as text: each
// message's role, then its text (binary parts by a note, embedded text
// resources inline). Missing required arguments are refused before the
// server is asked.
func (p *Pool) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (string, error) {
	if name == "" {
		return "", tools.InvalidInput("mcp_get_prompt needs server")
	}
	list, c, err := p.offering(name, true)
	if err != nil {
		return "", err
	}
	s := list[0]
	for _, pr := range s.snapshotLists().prompts {
		if pr.Name != prompt {
			continue
		}
		var missing []string
		for _, a := range pr.Arguments {
			if a != nil && a.Required && args[a.Name] == "" {
				missing = append(missing, a.Name)
			}
		}
		if len(missing) > 0 {
			return "", tools.InvalidInput("MCP prompt '%s' on server '%s' needs argument(s): %s", prompt, name, strings.Join(missing, ", "))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeouts.Read)
	defer cancel()
	res, err := c.sess.GetPrompt(cctx, &sdk.GetPromptParams{Name: prompt, Arguments: args})
	if err != nil {
		return "", tools.ExecutionFailed("MCP prompts/get '%s' on server '%s' failed: %s", shortURI(prompt), name, p.methodFailure(ctx, s, c, err))
	}
	var b strings.Builder
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s]\n", m.Role)
		switch v := m.Content.(type) {
		case *sdk.TextContent:
			b.WriteString(v.Text)
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Blob == nil {
				fmt.Fprintf(&b, "[resource %s]\n%s", v.Resource.URI, v.Resource.Text)
				break
			}
			note, _ := binaryNote(v)
			b.WriteString(note)
		default:
			if note, ok := binaryNote(v); ok {
				b.WriteString(note)
			} else if v != nil {
				raw, _ := json.Marshal(v)
				b.Write(raw)
			}
		}
		if b.Len() > MaxResourceBytes {
			break
		}
	}
	text, _ := bound(b.String(), MaxResourceBytes)
	return text, nil
}

// Prompts lists every connected server's prompts, by server name.
func (p *Pool) Prompts() map[string][]PromptInfo {
	out := map[string][]PromptInfo{}
	for _, s := range p.pick(nil) {
		if l := s.snapshotLists().prompts; len(l) > 0 {
			out[s.cfg.Name] = promptInfos(l)
		}
	}
	return out
}

// ResourceRef is one listed resource of a connected server, for mentions.
type ResourceRef struct {
	Server, URI, Name, MIMEType string
}

// Resources lists every connected server's listed resources, sorted by
// server then URI.
func (p *Pool) Resources() []ResourceRef {
	var out []ResourceRef
	for _, s := range p.pick(nil) {
		for _, r := range s.snapshotLists().resources {
			out = append(out, ResourceRef{Server: s.cfg.Name, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].URI < out[j].URI
	})
	return out
}
