package engine

import (
	"fmt"

	"github.com/codewhale/codewhale/internal/provider"
)

// Images reach the model only where it can see (CONTRACT.md §14.11): a
// message with images to a model the table gives no vision is refused
// before anything is sent, and images already in the history go to such a
// model as their one-line descriptions, which the person is told.

// refuseImages fails the turn when send carries images its model cannot
// take; the message is not added to the history.
func (t *turn) refuseImages(send SendMessage) bool {
	if len(send.Images) == 0 || t.noVision == nil {
		return false
	}
	t.fail(ErrorEnvelope{Message: t.noVision.Error(), Category: "invalid_input", Severity: "error", Recoverable: true})
	return true
}

// userMessage is the person's message: the text, the images, then the
// turn's facts.
func userMessage(text, meta string, images []provider.Block) provider.Message {
	content := make([]provider.Block, 0, len(images)+2)
	content = append(content, provider.TextBlock(text))
	content = append(content, images...)
	return provider.Message{Role: provider.RoleUser, Origin: provider.OriginUser,
		Content: append(content, provider.TextBlock(meta))}
}

// withoutImages is msgs with every image block replaced by its one-line
// description, and how many were; msgs itself is not changed.
func withoutImages(msgs []provider.Message) ([]provider.Message, int) {
	n := 0
	out := msgs
	for i, m := range msgs {
		if !m.HasBlock(provider.BlockImageURL) {
			continue
		}
		if n == 0 {
			out = append([]provider.Message(nil), msgs...)
		}
		blocks := make([]provider.Block, len(m.Content))
		for j, b := range m.Content {
			if b.Type == provider.BlockImageURL {
				b, n = provider.TextBlock(b.Description()), n+1
			}
			blocks[j] = b
		}
		out[i].Content = blocks
	}
	return out, n
}

// describeImages is the step's history for a model that cannot see: the
// images replaced by their descriptions, said once per turn.
func (t *turn) describeImages(msgs []provider.Message) []provider.Message {
	if t.noVision == nil {
		return msgs
	}
	out, n := withoutImages(msgs)
	if n > 0 && !t.toldDescribed {
		t.toldDescribed = true
		t.e.emit(Status{Keep: true, Message: fmt.Sprintf("%s cannot take images: the %d image(s) earlier in this "+
			"conversation were sent as their one-line descriptions.", t.client.Model(), n)})
	}
	return out
}

// resultImages are the blocks a tool result's images add to its message:
// a line naming the call, then the images.
func resultImages(name, id string, images []provider.Block) []provider.Block {
	if len(images) == 0 {
		return nil
	}
	out := []provider.Block{provider.TextBlock(fmt.Sprintf("Image(s) returned by %s (call %s):", firstRunes(name, 64), firstRunes(id, 64)))}
	return append(out, images...)
}

// imageTokens estimates what an image costs in input tokens: about one per
// 750 pixels, the rule vision providers publish, for estimates only.
func imageTokens(b provider.Block) int {
	if b.Image == nil {
		return 1000
	}
	return b.Image.Width*b.Image.Height/750 + 85
}
