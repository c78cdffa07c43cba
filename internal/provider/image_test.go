package provider

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// CONTRACT.md §10.5: a typed image goes as an image_url part after the
// text; a tool result's image follows the last tool message of its batch,
// so every tool message still comes right after its assistant message.
func TestWireImageParts(t *testing.T) {
	t.Parallel()
	img := ImageBlock("data:image/png;base64,AAAA", Image{MIME: "image/png", Width: 2, Height: 1, Bytes: 3})
	hist := []Message{
		{Role: RoleUser, Content: []Block{TextBlock("look"), img, TextBlock("<turn_meta>m</turn_meta>")}},
		{Role: RoleAssistant, Content: []Block{ToolUseBlock("c1", "read_media", nil), ToolUseBlock("c2", "Git", nil)}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c1", "read", false), TextBlock("Image from read_media (call c1):"), img}},
		{Role: RoleUser, Content: []Block{ToolResultBlock("c2", "clean", false)}},
		{Role: RoleAssistant, Content: []Block{TextBlock("done")}},
	}
	m := body(t, &Request{Model: "m", Messages: hist}, "http://127.0.0.1:1")
	got, _ := json.Marshal(m["messages"])
	part := `{"image_url":{"url":"data:image/png;base64,AAAA"},"type":"image_url"}`
	want := `[{"content":[{"text":"look","type":"text"},` + part + `,{"text":"\u003cturn_meta\u003em\u003c/turn_meta\u003e","type":"text"}],"role":"user"},` +
		`{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"read_media"},"id":"c1","type":"function"},` +
		`{"function":{"arguments":"{}","name":"Git"},"id":"c2","type":"function"}]},` +
		`{"content":"read","role":"tool","tool_call_id":"c1"},{"content":"clean","role":"tool","tool_call_id":"c2"},` +
		`{"content":[{"text":"Image from read_media (call c1):","type":"text"},` + part + `],"role":"user"},` +
		`{"content":"done","role":"assistant"}]`
	if string(got) != want {
		t.Errorf("messages:\n got %s\nwant %s", got, want)
	}
}

func TestCheckVisionNamesTheModelsThatCan(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	table := &ModelTable{
		Overrides: map[string]ModelOverride{"eyes-local": {Vision: &yes}, "blind": {Vision: &no}},
		Live: func() []LiveModel {
			return []LiveModel{{ID: "server-eyes", Vision: &yes}, {ID: "server-text"}}
		},
	}
	if err := table.CheckVision("eyes-local", "ollama", false); err != nil {
		t.Errorf("a model marked vision = true was refused: %v", err)
	}
	if err := table.CheckVision("server-eyes", "ollama", false); err != nil {
		t.Errorf("a model the server lists with image input was refused: %v", err)
	}
	err := table.CheckVision("server-text", "ollama", false)
	var nv *NoVisionError
	if !errors.As(err, &nv) || strings.Join(nv.Others, ",") != "eyes-local,server-eyes" {
		t.Fatalf("err = %v, want a NoVisionError naming eyes-local and server-eyes", err)
	}
	want := `server-text cannot take images (the model table gives it no vision), so nothing was sent. ` +
		`Models on ollama that can: eyes-local, server-eyes. Switch with /model (or --model), ` +
		`or set [models."server-text"] vision = true if it can.`
	if err.Error() != want {
		t.Errorf("text:\n got %s\nwant %s", err, want)
	}
	err = (*ModelTable)(nil).CheckVision("deepseek-v4-pro", "deepseek", true)
	if err == nil || !strings.Contains(err.Error(), "No model on deepseek is known to take images") {
		t.Errorf("the built-in table: %v", err)
	}
}

func TestImageDescribe(t *testing.T) {
	t.Parallel()
	im := Image{MIME: "image/png", Width: 1280, Height: 720, Bytes: 217_000, Label: "shot.png"}
	if got, want := im.Describe(), "[image: shot.png, 1280×720 PNG 212 KB]"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if got := FormatBytes(3 << 20); got != "3.0 MB" {
		t.Errorf("FormatBytes = %q", got)
	}
}
