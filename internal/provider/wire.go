package provider

import (
	"bytes"
	"encoding/json"
	"strings"
)

// wireRequest is the Chat Completions request body (CONTRACT.md §10.4).
type wireRequest struct {
	Model           string         `json:"model"`
	Messages        []wireMessage  `json:"messages"`
	MaxTokens       int            `json:"max_tokens,omitempty"`
	Stream          bool           `json:"stream,omitempty"`
	StreamOptions   *streamOptions `json:"stream_options,omitempty"`
	Tools           *[]wireTool    `json:"tools,omitempty"`
	ToolChoice      any            `json:"tool_choice,omitempty"`
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
	Thinking        *thinking      `json:"thinking,omitempty"`
	Temperature     *float64       `json:"temperature,omitempty"`
	TopP            *float64       `json:"top_p,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type thinking struct {
	Type string `json:"type"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Strict      *bool          `json:"strict,omitempty"`
}

type wireMessage struct {
	Role             string         `json:"role"`
	Content          any            `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function wireCallFunction `json:"function"`
}

type wireCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// ReasoningOmitted stands in for missing reasoning on an assistant message
// that carries tool calls; DeepSeek rejects such messages without it.
const ReasoningOmitted = "(reasoning omitted)"

// reasoningTier maps a reasoning-effort tier to the wire effort; off reports
// whether thinking is disabled. ok is false when the tier is absent.
func reasoningTier(tier string) (effort string, off, ok bool) {
	switch strings.ToLower(strings.TrimSpace(tier)) {
	case "":
		return "", false, false
	case "off", "disabled", "none", "false":
		return "", true, true
	case "low", "minimal":
		return "low", false, true
	case "xhigh", "max", "highest", "ultracode":
		return "max", false, true
	default: // medium, mid, high, auto
		return "high", false, true
	}
}

// requiresReasoningReplay reports whether the model wants reasoning_content
// echoed back on assistant messages (CONTRACT.md §10.5).
func requiresReasoningReplay(model string) bool {
	m := strings.ToLower(model)
	if strings.Contains(m, "deepseek-v4") || strings.HasPrefix(m, "deepseek-chat") ||
		strings.HasPrefix(m, "deepseek-reasoner") || strings.Contains(m, "reasoner") ||
		strings.Contains(m, "-reasoning") || strings.Contains(m, "-thinking") {
		return true
	}
	if i := strings.Index(m, "deepseek-r"); i >= 0 && i+len("deepseek-r") < len(m) {
		c := m[i+len("deepseek-r")]
		return c >= '0' && c <= '9'
	}
	return false
}

// encodeBody builds the wire JSON for req. base decides whether `strict` is
// kept (CONTRACT.md §10.1).
func encodeBody(req *Request, base string) ([]byte, error) {
	effort, off, hasTier := reasoningTier(req.ReasoningEffort)
	w := wireRequest{
		Model:       req.Model,
		MaxTokens:   req.MaxTokens,
		Stream:      req.Stream,
		Temperature: req.Temperature,
		TopP:        req.TopP,
	}
	if req.Stream {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if hasTier {
		if off {
			w.Thinking = &thinking{Type: "disabled"}
		} else {
			w.ReasoningEffort = effort
			w.Thinking = &thinking{Type: "enabled"}
		}
	}
	thinkingOn := hasTier && !off
	if req.Tools != nil {
		keep := keepStrict(base)
		tools := make([]wireTool, 0, len(req.Tools))
		for _, t := range req.Tools {
			f := wireFunction{Name: EncodeToolName(t.Name), Description: t.Description, Parameters: t.InputSchema}
			if keep {
				f.Strict = t.Strict
			}
			if f.Parameters == nil {
				f.Parameters = map[string]any{"type": "object"}
			}
			tools = append(tools, wireTool{Type: "function", Function: f})
		}
		w.Tools = &tools
		if req.ToolChoice != nil && !thinkingOn {
			w.ToolChoice = wireToolChoice(req.ToolChoice)
		}
	}
	w.Messages = wireMessages(req, requiresReasoningReplay(req.Model) && !off)
	return json.Marshal(&w)
}

func wireToolChoice(tc *ToolChoice) any {
	switch tc.Type {
	case "auto", "any":
		return "auto"
	case "none":
		return "none"
	case "required":
		return "required"
	case "tool":
		return map[string]any{"type": "function", "function": map[string]string{"name": EncodeToolName(tc.Name)}}
	}
	return tc.Type
}

// wireMessages maps the internal history onto Chat Completions messages
// (CONTRACT.md §10.5), then drops tool calls whose results never arrived.
func wireMessages(req *Request, replay bool) []wireMessage {
	out := make([]wireMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		out = append(out, wireMessage{Role: "system", Content: req.System})
	}
	var lastCalls map[string]bool
	// held are the user parts of tool-result messages (a read_media
	// image): Chat Completions wants every tool message of a call batch
	// right after the assistant message, so they follow the last one.
	var held []wireMessage
	for _, m := range req.Messages {
		switch m.Role {
		case RoleAssistant, RoleAssistantInterrupted:
			out, held = append(out, held...), nil
			wm, ok := assistantMessage(m, replay)
			lastCalls = nil
			if !ok {
				continue
			}
			if len(wm.ToolCalls) > 0 {
				lastCalls = make(map[string]bool, len(wm.ToolCalls))
				for _, c := range wm.ToolCalls {
					lastCalls[c.ID] = true
				}
			}
			out = append(out, wm)
		case RoleUser:
			results, user := userMessages(m, lastCalls)
			if len(results) > 0 {
				out = append(out, results...)
				held = append(held, user...)
				continue
			}
			out, held = append(append(out, held...), user...), nil
		}
	}
	return dropUnansweredCalls(append(out, held...))
}

func assistantMessage(m Message, replay bool) (wireMessage, bool) {
	text := m.Text()
	if m.Role == RoleAssistantInterrupted && text != "" {
		text = InterruptedPrefix + text
	}
	wm := wireMessage{Role: "assistant"}
	for _, b := range m.Content {
		if b.Type != BlockToolUse {
			continue
		}
		args := string(b.Input)
		if args == "" {
			args = "{}"
		} else if compact, err := compactJSON(b.Input); err == nil {
			args = compact
		}
		wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: b.ID, Type: "function",
			Function: wireCallFunction{Name: EncodeToolName(b.Name), Arguments: args}})
	}
	thinkingText := m.Thinking()
	if replay {
		switch {
		case thinkingText != "":
			wm.ReasoningContent = &thinkingText
		case len(wm.ToolCalls) > 0:
			s := ReasoningOmitted
			wm.ReasoningContent = &s
		}
	}
	switch {
	case text != "":
		wm.Content = text
	case wm.ReasoningContent != nil:
		wm.Content = ""
	default:
		wm.Content = nil
	}
	if text == "" && len(wm.ToolCalls) == 0 && wm.ReasoningContent == nil {
		return wm, false
	}
	return wm, true
}

// userMessages maps a user message onto the tool messages of its answered
// results and at most one user message of its text and image parts.
func userMessages(m Message, calls map[string]bool) (results, user []wireMessage) {
	var texts []string
	var parts []contentPart // text and image parts in block order
	images := false
	for _, b := range m.Content {
		switch b.Type {
		case BlockToolResult:
			if calls[b.ToolUseID] {
				results = append(results, wireMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: b.Content})
			}
		case BlockText:
			texts = append(texts, b.Text)
			parts = append(parts, contentPart{Type: "text", Text: b.Text})
		case BlockImageURL:
			images = true
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: b.ImageURL}})
		}
	}
	switch {
	case len(parts) == 0:
		return results, nil
	case !images:
		return results, []wireMessage{{Role: "user", Content: strings.Join(texts, "\n")}}
	}
	return results, []wireMessage{{Role: "user", Content: parts}}
}

// dropUnansweredCalls removes assistant tool calls that have no tool message
// before the next assistant message, with their orphaned tool messages, and
// removes an assistant message that becomes empty.
func dropUnansweredCalls(msgs []wireMessage) []wireMessage {
	for i := range msgs {
		if msgs[i].Role != "assistant" || len(msgs[i].ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for j := i + 1; j < len(msgs) && msgs[j].Role != "assistant"; j++ {
			if msgs[j].Role == "tool" {
				answered[msgs[j].ToolCallID] = true
			}
		}
		kept := msgs[i].ToolCalls[:0:0]
		for _, c := range msgs[i].ToolCalls {
			if answered[c.ID] {
				kept = append(kept, c)
			}
		}
		msgs[i].ToolCalls = kept
	}
	out := msgs[:0]
	var live map[string]bool
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			live = map[string]bool{}
			for _, c := range m.ToolCalls {
				live[c.ID] = true
			}
			if len(m.ToolCalls) == 0 && (m.Content == nil || m.Content == "") {
				continue
			}
		case "tool":
			if !live[m.ToolCallID] {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

func compactJSON(raw json.RawMessage) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}
