package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRenderResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		res     *sdk.CallToolResult
		success bool
		want    string
	}{
		{"text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "<ok> & done"}}}, true,
			`{"content":[{"type":"text","text":"<ok> & done"}]}`},
		{"error joins text", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{
			&sdk.TextContent{Text: "a"}, &sdk.ImageContent{Data: []byte("png"), MIMEType: "image/png"}, &sdk.TextContent{Text: "b"}}}, false,
			"a\nb"},
		{"error without text is the payload", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{}}, false,
			`{"content":[],"isError":true}`},
		{"structured", &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"n": 1.5}}, true,
			`{"content":[],"structuredContent":{"n":1.5}}`},
		{"image note", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("0123456789"), MIMEType: "image/png"}}}, true,
			`{"content":[{"type":"text","text":"[image omitted (image/png, 10 bytes): binary content is not shown to the model]"}]}`},
		{"blob note", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
			URI: "file:///x.bin", MIMEType: "application/octet-stream", Blob: []byte("abc")}}}}, true,
			`{"content":[{"type":"text","text":"[resource file:///x.bin omitted (application/octet-stream, 3 bytes): binary content is not shown to the model]"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := renderResult("s", "t", c.res)
			if got.Success != c.success || !strings.Contains(got.Content, c.want) {
				t.Errorf("got success %v content %s\nwant success %v content containing %s", got.Success, got.Content, c.success, c.want)
			}
			if got.Metadata["mcp_server"] != "s" || got.Metadata["mcp_tool"] != "t" {
				t.Errorf("metadata = %v", got.Metadata)
			}
		})
	}
}

func TestBoundCutsOnARuneBoundary(t *testing.T) {
	t.Parallel()
	text, n := bound(strings.Repeat("é", 10), 5) // 20 bytes, 2 per rune
	if n != 20 || !strings.HasPrefix(text, "éé\n[MCP result truncated: showing the first 4 of 20 bytes.") {
		t.Errorf("bound = %q, %d", text, n)
	}
	if text, n := bound("short", 5); text != "short" || n != 5 {
		t.Errorf("bound(short) = %q, %d", text, n)
	}
}

func TestUnescapeHTMLKeepsEscapedBackslashes(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`"\u003cb\u003e \u0026"`: `"<b> &"`,
		`"\\u003c"`:              `"\\u003c"`, // the data held a literal backslash-u003c
		`"\\\u003c"`:             `"\\<"`,
		`"plain"`:                `"plain"`,
	}
	for in, want := range cases {
		if got := unescapeHTML(in); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
	}
}
