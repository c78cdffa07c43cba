package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/codewhale/codewhale/internal/netpolicy"
	"github.com/codewhale/codewhale/internal/tools"
)

// inlineLimit is the most page text a fetch returns inline; the rest stays
// behind a handle (or, with no handle store, is cut with a receipt).
const inlineLimit = 20_000

// Fetched is the fetch result the model receives.
type Fetched struct {
	URL          string           `json:"url"`
	FinalURL     string           `json:"final_url,omitempty"`
	Status       int              `json:"status"`
	ContentType  string           `json:"content_type"`
	Title        string           `json:"title,omitempty"`
	CanonicalURL string           `json:"canonical_url,omitempty"`
	Format       string           `json:"format"`
	Content      string           `json:"content"`
	BytesRead    int              `json:"bytes_read"`
	TotalBytes   int64            `json:"total_bytes,omitempty"`
	Truncated    bool             `json:"truncated"`
	Fields       map[string][]any `json:"fields,omitempty"`
	Handle       any              `json:"handle,omitempty"`
	Note         string           `json:"note,omitempty"`
}

func (t *Tool) fetch(ctx context.Context, tc *tools.Context, in input, grant *netpolicy.Grant) (tools.Result, error) {
	u, err := url.Parse(in.url)
	if err != nil || u.Hostname() == "" {
		return tools.Result{}, tools.InvalidInput("invalid URL %q: it needs a scheme and a host", in.url)
	}
	if d := t.policy.Decide(u.Hostname()); d.Verdict == netpolicy.Denied {
		t.audit(in, u, "deny", 0, 0, d.Reason)
		return tools.Result{}, tools.PermissionDenied("%s", d.Reason)
	}
	ctx, cancel := context.WithTimeout(ctx, in.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Result{}, tools.InvalidInput("invalid URL %q: %v", in.url, err)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en-US,en;q=0.7")
	resp, err := t.client(grant, 0).Do(req)
	if err != nil {
		t.audit(in, u, "allow", 0, 0, err.Error())
		return tools.Result{}, fetchError(ctx, in, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(in.maxBytes)+1))
	if err != nil && ctx.Err() != nil {
		return tools.Result{}, tools.ExecutionFailed("fetch of %s timed out after %s while reading the body (%d bytes read)", in.url, in.timeout, len(body))
	}
	truncated := len(body) > in.maxBytes
	if truncated {
		body = body[:in.maxBytes]
	}
	t.audit(in, u, "allow", resp.StatusCode, int64(len(body)), "")
	out := Fetched{URL: in.url, Status: resp.StatusCode, Format: in.format, BytesRead: len(body), Truncated: truncated}
	if resp.Request != nil && resp.Request.URL.String() != in.url {
		out.FinalURL = resp.Request.URL.String()
	}
	if resp.ContentLength > 0 {
		out.TotalBytes = resp.ContentLength
	}
	if err := t.render(ctx, tc.Workspace, &out, resp, body, in); err != nil {
		return tools.Result{}, err
	}
	t.fitContent(tc, &out)
	data, _ := json.Marshal(out)
	res := tools.Result{Content: string(data), Success: resp.StatusCode >= 200 && resp.StatusCode < 300}
	res.Metadata = map[string]any{"status": resp.StatusCode, "content_type": out.ContentType, "bytes": len(body),
		"truncated": out.Truncated, "url": in.url}
	return res, nil
}

func fetchError(ctx context.Context, in input, err error) error {
	switch {
	case errors.Is(err, netpolicy.ErrPrivate), errors.Is(err, netpolicy.ErrDenied):
		return tools.PermissionDenied("%v", unwrapURLError(err))
	case errors.Is(err, errTooManyRedirects):
		return tools.ExecutionFailed("fetch of %s failed: %v", in.url, unwrapURLError(err))
	case ctx.Err() != nil:
		return tools.ExecutionFailed("fetch of %s timed out after %s", in.url, in.timeout)
	}
	return tools.ExecutionFailed("fetch of %s failed: %v", in.url, unwrapURLError(err))
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (t *Tool) audit(in input, u *url.URL, decision string, status int, n int64, errText string) {
	t.policy.Audit.Record(netpolicy.Entry{Tool: ToolName, Action: in.action, URL: u.Redacted(), Host: u.Hostname(),
		Decision: decision, Status: status, Bytes: n, Error: errText})
}

// render fills the content by type: HTML converted per format, JSON with
// optional projections, other text decoded, PDFs through pdftotext, and
// binary content refused with its type and size.
func (t *Tool) render(ctx context.Context, workspace string, out *Fetched, resp *http.Response, body []byte, in input) error {
	ctype := resp.Header.Get("Content-Type")
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	out.ContentType = ctype
	media, _, _ := mime.ParseMediaType(ctype)
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		if in.format == "raw" {
			out.Content = decodeText(body, ctype)
			return nil
		}
		page, err := convertHTML(body, ctype, finalURL(resp, in.url), in.format)
		if err != nil {
			return tools.ExecutionFailed("%s could not be converted to %s (%v); fetch it with format=raw for its HTML",
				in.url, in.format, err)
		}
		out.Content, out.Title, out.CanonicalURL = page.content, page.title, page.canonical
	case isJSON(media):
		out.Content = decodeText(body, ctype)
		if len(in.fields) > 0 {
			fields, err := project(body, in.fields, out.Truncated)
			if err != nil {
				return err
			}
			out.Fields = fields
		}
	case media == "application/pdf":
		text, note, cut := t.pdfText(ctx, workspace, body, in.maxBytes)
		out.Content, out.Note = text, note
		out.Truncated = out.Truncated || cut
		if in.format == "raw" {
			out.Note = "raw PDF bytes are not returned; this is the extracted text. " + note
		}
	case isText(media):
		out.Content = decodeText(body, ctype)
	default:
		size := fmt.Sprintf("%d bytes read", len(body))
		if resp.ContentLength > 0 {
			size = fmt.Sprintf("%d bytes", resp.ContentLength)
		}
		return tools.ExecutionFailed("%s returned binary content (%s, %s), which fetch does not return; "+
			"download it with a command if the user wants the file", in.url, ctype, size)
	}
	if len(in.fields) > 0 && !isJSON(media) {
		out.Note = strings.TrimSpace(out.Note + " `fields` applies to JSON bodies only; this body is " + media + ".")
	}
	return nil
}

func finalURL(resp *http.Response, fallback string) string {
	if resp.Request != nil && resp.Request.URL != nil {
		return resp.Request.URL.String()
	}
	return fallback
}

func isJSON(media string) bool {
	return media == "application/json" || strings.HasSuffix(media, "+json") || media == "text/json"
}

func isText(media string) bool {
	if strings.HasPrefix(media, "text/") {
		return true
	}
	switch media {
	case "application/xml", "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/yaml", "application/x-yaml", "application/toml", "application/x-sh", "application/sql",
		"application/graphql", "application/rss+xml", "application/atom+xml":
		return true
	}
	return strings.HasSuffix(media, "+xml")
}

// fitContent keeps at most inlineLimit characters inline — fewer when the
// call's result budget is smaller, leaving room for JSON escaping and the
// receipt — and puts the whole text behind a handle.
func (t *Tool) fitContent(tc *tools.Context, out *Fetched) {
	limit := min(inlineLimit, tc.ResultBudget()/2)
	total := utf8.RuneCountInString(out.Content)
	if total <= limit {
		return
	}
	full := out.Content
	out.Content = firstRunes(full, limit)
	if t.opts.Handles != nil {
		h := t.opts.Handles.Put("web", "content", "page", full)
		out.Handle = h
		out.Note = strings.TrimSpace(fmt.Sprintf("%s Showing the first %d of %d characters; read the rest with "+
			"handle_read {\"session_id\":%q,\"name\":\"content\",\"offset\":%d}.", out.Note, limit, total, h.SessionID, limit))
		return
	}
	out.Note = strings.TrimSpace(fmt.Sprintf("%s Showing the first %d of %d characters; fetch with format=text, "+
		"a smaller max_bytes or a more specific URL for the rest.", out.Note, limit, total))
}

// firstRunes is string([]rune(s)[:n]) without decoding all of s (a page's
// Markdown runs to ~1 MB): the byte prefix holding n runes, which is the
// same string unless it holds invalid UTF-8, which the conversion to runes
// turns into U+FFFD byte by byte.
func firstRunes(s string, n int) string {
	off := len(s)
	for i := range s {
		if n == 0 {
			off = i
			break
		}
		n--
	}
	if p := s[:off]; utf8.ValidString(p) {
		return p
	}
	return string([]rune(s[:off]))
}
