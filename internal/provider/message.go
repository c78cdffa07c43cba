// Package provider holds the conversation model shared by the engine and the
// session store, and the DeepSeek (OpenAI-compatible Chat Completions) client
// that turns a Request into a stream of Anthropic-shaped events.
package provider

import "encoding/json"

// Role is the author of a Message in the internal block model.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleAssistantInterrupted marks a partial reply kept after the user
	// cancelled a stream. It is sent to the model as an assistant message with
	// InterruptedPrefix in front of its text.
	RoleAssistantInterrupted Role = "assistant_interrupted"
	RoleSystem               Role = "system"
)

// InterruptedPrefix starts the wire text of an assistant_interrupted message.
const InterruptedPrefix = "[The following assistant output was interrupted before completion and may be incomplete or wrong]\n"

// Block types of the internal model.
const (
	BlockText       = "text"
	BlockThinking   = "thinking"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
	BlockImageURL   = "image_url"
)

// Block is one content block. Only the fields of its Type are meaningful; the
// JSON form is the session file's message format (CONTRACT.md §12.2).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	ImageURL  string          `json:"image_url,omitempty"`
	// Image is what is known of an image block's image (image.go); the
	// session file keeps it and the bytes apart (CONTRACT.md §12.2).
	Image *Image `json:"image,omitempty"`
	// Receipt is what a tool result keeps for the UI besides the content
	// the model reads; it is stored with the session and never sent.
	Receipt *ToolReceipt `json:"receipt,omitempty"`
}

// ToolReceipt is the outcome of a tool call as the UI draws it, so a
// resumed transcript is drawn from the same facts as the live one.
type ToolReceipt struct {
	Success  bool           `json:"success"`
	Category string         `json:"category,omitempty"` // error category, or tool_reported_failure
	Meta     map[string]any `json:"meta,omitempty"`     // the tool's receipts (exit code, file.mutation, …)
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: BlockText, Text: s} }

// ThinkingBlock returns a thinking block.
func ThinkingBlock(s string) Block { return Block{Type: BlockThinking, Thinking: s} }

// ToolUseBlock returns a tool-use block. A nil input is stored as {}.
func ToolUseBlock(id, name string, input json.RawMessage) Block {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return Block{Type: BlockToolUse, ID: id, Name: name, Input: input}
}

// ToolResultBlock returns a tool-result block answering the call id.
func ToolResultBlock(id, content string, isError bool) Block {
	return Block{Type: BlockToolResult, ToolUseID: id, Content: content, IsError: isError}
}

// Message is one entry of the conversation history.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
	Origin  Origin  `json:"origin,omitempty"` // who made it, where the role does not say (origin.go)
}

// UserText returns a user message holding one text block.
func UserText(s string) Message { return Message{Role: RoleUser, Content: []Block{TextBlock(s)}} }

// Text joins the message's text blocks with newlines.
func (m Message) Text() string {
	var out []byte
	n := 0
	for _, b := range m.Content {
		if b.Type != BlockText {
			continue
		}
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, b.Text...)
		n++
	}
	return string(out)
}

// Thinking joins the message's thinking blocks.
func (m Message) Thinking() string {
	var out string
	for _, b := range m.Content {
		if b.Type == BlockThinking {
			out += b.Thinking
		}
	}
	return out
}

// ToolUses returns the message's tool-use blocks in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// HasBlock reports whether the message has a block of the given type.
func (m Message) HasBlock(typ string) bool {
	for _, b := range m.Content {
		if b.Type == typ {
			return true
		}
	}
	return false
}
