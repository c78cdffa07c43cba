package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codewhale/codewhale/internal/tools"
)

// MaxResultBytes bounds the text of one failed MCP call the model sees; the
// rest is cut and the cut is stated in the text and the metadata. A
// successful result is cut to the call's budget by Adapter.Execute.
const MaxResultBytes = 100 << 10

// renderResult turns a tools/call result into a tool result (CONTRACT.md §4.7):
// isError → failure with the text items joined by "\n" (the payload JSON
// when there is no text); otherwise success with the payload as compact
// JSON. Binary data (images, audio, blobs) is replaced by a note.
func renderResult(server, tool string, res *sdk.CallToolResult) tools.Result {
	payload, omitted := payloadJSON(res)
	text := payload
	if res.IsError {
		if joined := joinedText(res); joined != "" {
			text = joined
		}
	}
	// A successful payload is JSON: Adapter.Execute cuts it to the call's
	// budget structurally, so it stays valid. An error's text is bounded
	// here.
	full := len(text)
	if res.IsError {
		text, full = bound(text, MaxResultBytes)
	}
	meta := map[string]any{"mcp_server": server, "mcp_tool": tool, "bytes": full}
	if res.IsError && full > MaxResultBytes {
		meta["truncated"] = true
	}
	if omitted > 0 {
		meta["binary_items_omitted"] = omitted
	}
	if res.StructuredContent != nil {
		meta["structured_content"] = true
	}
	return tools.Result{Content: text, Success: !res.IsError, Metadata: meta}
}

// joinedText is the text items of the content joined by "\n".
func joinedText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// payloadJSON serialises the whole result compactly, with each binary item
// (image, audio, embedded blob) replaced by a text note, and reports how
// many items were replaced. The SDK's field order is kept.
func payloadJSON(res *sdk.CallToolResult) (string, int) {
	cp := *res
	cp.Content = make([]sdk.Content, len(res.Content))
	omitted := 0
	for i, c := range res.Content {
		note, ok := binaryNote(c)
		if ok {
			c = &sdk.TextContent{Text: note}
			omitted++
		}
		cp.Content[i] = c
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&cp); err != nil {
		return fmt.Sprintf(`{"error":"the MCP result could not be serialised: %v"}`, err), omitted
	}
	return unescapeHTML(strings.TrimSuffix(buf.String(), "\n")), omitted
}

// unescapeHTML undoes the \u003c, \u003e and \u0026 escapes the SDK's
// encoder writes, so the model reads "<", ">" and "&". Escaped backslashes
// are skipped in pairs, so a literal "\\u003c" in the data stays as it is.
func unescapeHTML(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			switch s[i+2 : i+6] {
			case "003c", "003C":
				b.WriteByte('<')
				i += 5
				continue
			case "003e", "003E":
				b.WriteByte('>')
				i += 5
				continue
			case "0026":
				b.WriteByte('&')
				i += 5
				continue
			}
		}
		b.WriteString(s[i : i+2])
		i++
	}
	return b.String()
}

// binaryNote describes a binary content item instead of showing its data.
func binaryNote(c sdk.Content) (string, bool) {
	switch v := c.(type) {
	case *sdk.ImageContent:
		return omittedNote("image", v.MIMEType, len(v.Data), ""), true
	case *sdk.AudioContent:
		return omittedNote("audio", v.MIMEType, len(v.Data), ""), true
	case *sdk.EmbeddedResource:
		if v.Resource != nil && v.Resource.Blob != nil {
			return omittedNote("resource", v.Resource.MIMEType, len(v.Resource.Blob), v.Resource.URI), true
		}
	}
	return "", false
}

func omittedNote(kind, mime string, size int, uri string) string {
	if mime == "" {
		mime = "unknown type"
	}
	if uri != "" {
		uri = " " + uri
	}
	return fmt.Sprintf("[%s%s omitted (%s, %d bytes): binary content is not shown to the model]", kind, uri, mime, size)
}

// bound cuts text to at most limit bytes on a rune boundary and says so. It
// returns the (possibly cut) text and the original length.
func bound(text string, limit int) (string, int) {
	n := len(text)
	if n <= limit {
		return text, n
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n[MCP result truncated: showing the first %d of %d bytes. Ask the tool for a narrower result.]", cut, n), n
}
