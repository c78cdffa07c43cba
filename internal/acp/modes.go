package acp

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
	"github.com/codewhale/codewhale/internal/images"
	"github.com/codewhale/codewhale/internal/posture"
	"github.com/codewhale/codewhale/internal/provider"
)

// modes are the session modes a client may switch between: codewhale's
// Plan, Act and Operate (CONTRACT.md §8.1). The posture is not a mode: an
// editor never widens it.
var modes = []struct {
	mode       posture.Mode
	name, what string
}{
	{posture.Plan, "Plan", "Read and plan: nothing that writes runs."},
	{posture.Act, "Act", "Edit files and run commands, asking as the approval posture says."},
	{posture.Operate, "Operate", "Act, plus the operator's tools for longer unattended work."},
}

func modeID(m posture.Mode) sdk.SessionModeId { return sdk.SessionModeId(m.String()) }

// modeState is the modes offered and the one in force.
func modeState(cur posture.Mode) *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: modeID(cur)}
	for _, m := range modes {
		what := m.what
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: modeID(m.mode), Name: m.name, Description: &what})
	}
	return st
}

// SetSessionMode implements sdk.Agent: the engine's ChangeMode op, adopted
// by a running turn at its next step.
func (a *Agent) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	defer a.track()()
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	var m posture.Mode
	found := false
	for _, o := range modes {
		if strings.EqualFold(string(p.ModeId), string(modeID(o.mode))) {
			m, found = o.mode, true
		}
	}
	if !found {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": "unknown mode " +
			string(p.ModeId) + ": use plan, act or operate"})
	}
	s.eng.Submit(engine.ChangeMode{Mode: &m})
	return sdk.SetSessionModeResponse{}, nil
}

// keyMissingText is the AuthRequired error's text.
const keyMissingText = "no API key is configured for the model provider: run `codewhale auth set` " +
	"(or set the provider's *_API_KEY variable for the agent), then authenticate"

// authMethods are the ways a client can give codewhale a key: run
// `codewhale auth set` in a terminal, after which authenticate re-reads
// the key store.
func authMethods() []sdk.AuthMethod {
	what := "Store the provider's API key with `codewhale auth set` (it reads the key on stdin), or set the provider's " +
		"*_API_KEY variable in the agent's environment; then authenticate."
	return []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: authKeyStore, Name: "API key", Description: &what}}}
}

const authKeyStore = "codewhale-api-key"

// Authenticate implements sdk.Agent: it succeeds once a key is there.
func (a *Agent) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	defer a.track()()
	if p.MethodId != authKeyStore {
		return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": "unknown auth method " + p.MethodId})
	}
	if a.opts.KeyMissing != nil && a.opts.KeyMissing() {
		return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": keyMissingText})
	}
	return sdk.AuthenticateResponse{}, nil
}

// message is a prompt's content blocks as one engine message: text as it
// is, a resource link named, an embedded text resource inlined with its
// URI, an image checked, scaled and encoded by internal/images as an
// attached one is (CONTRACT.md §14.11; a model that cannot see refuses the
// turn before anything is sent).
func message(ctx context.Context, blocks []sdk.ContentBlock) (engine.SendMessage, error) {
	var b strings.Builder
	var imgs []provider.Block
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			b.WriteString("\n@" + c.ResourceLink.Uri + "\n")
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			b.WriteString("\n<context uri=\"" + r.Uri + "\">\n" + r.Text + "\n</context>\n")
		case c.Image != nil:
			img, err := image(ctx, c.Image, len(imgs)+1)
			if err != nil {
				return engine.SendMessage{}, err
			}
			imgs = append(imgs, img)
		default:
			return engine.SendMessage{}, sdk.NewInvalidParams(map[string]any{"error": "unsupported content block: " +
				"codewhale takes text, images, resource links and embedded text resources (initialize's promptCapabilities)"})
		}
	}
	if strings.TrimSpace(b.String()) == "" && len(imgs) == 0 {
		return engine.SendMessage{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt is empty"})
	}
	return engine.SendMessage{Content: b.String(), Provenance: engine.ProvenanceUser, Images: imgs}, nil
}

// image is one prompt image as the request's block.
func image(ctx context.Context, c *sdk.ContentBlockImage, n int) (provider.Block, error) {
	data, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return provider.Block{}, sdk.NewInvalidParams(map[string]any{"error": "image " + strconv.Itoa(n) + ": data is not base64: " + err.Error()})
	}
	prep, err := images.Prepare(ctx, data, images.Options{})
	if err != nil {
		return provider.Block{}, sdk.NewInvalidParams(map[string]any{"error": "image " + strconv.Itoa(n) + ": " + err.Error()})
	}
	label := "image " + strconv.Itoa(n)
	if c.Uri != nil && *c.Uri != "" {
		label = *c.Uri
	}
	return prep.Block(label), nil
}
