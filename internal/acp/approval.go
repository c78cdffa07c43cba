package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/engine"
)

// The permission options, by the id the client answers with. They are the
// approval card's choices (CONTRACT.md §14.6): a call only a person's yes
// to this one call approves offers no "allow for the session".
const (
	optAllowOnce    = "allow_once"
	optAllowSession = "allow_session"
	optDeny         = "deny"
	optAbort        = "abort"
)

// approval asks the client the question the TUI's card would ask, on its
// own goroutine so the pump keeps reading, and answers the engine. The
// wait is bounded: a client that never answers denies the call.
func (s *session) approval(req engine.ApprovalRequired) {
	ctx := s.a.ctx
	if t := s.current(); t != nil {
		ctx = t.ctx
	}
	go func() {
		ctx, cancel := context.WithTimeout(ctx, s.a.opts.PermissionWait)
		defer cancel()
		resp, err := s.a.conn.RequestPermission(ctx, permissionRequest(s, req))
		s.eng.Submit(decision(req.ID, resp, err))
	}()
}

// decision is the engine op for the client's answer. A cancelled request,
// a timeout or a broken connection is a deny: only a yes authorises.
func decision(id string, resp sdk.RequestPermissionResponse, err error) engine.Op {
	if err != nil || resp.Outcome.Selected == nil {
		return engine.DenyToolCall{ID: id}
	}
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		return engine.ApproveToolCall{ID: id}
	case optAllowSession:
		return engine.ApproveToolCall{ID: id, ForSession: true}
	case optAbort:
		return engine.DenyToolCall{ID: id, Abort: true}
	}
	return engine.DenyToolCall{ID: id}
}

// permissionOptions are the card's choices as the protocol's options.
func permissionOptions(forcePrompt bool) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if !forcePrompt {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowSession, Name: "Allow for this session (this kind)",
			Kind: sdk.PermissionOptionKindAllowAlways})
	}
	return append(opts,
		sdk.PermissionOption{OptionId: optDeny, Name: "Deny this call", Kind: sdk.PermissionOptionKindRejectOnce},
		sdk.PermissionOption{OptionId: optAbort, Name: "Abort the turn", Kind: sdk.PermissionOptionKindRejectOnce})
}

// permissionRequest is the session/request_permission for req: the call's
// title, kind, locations and diff, the card's text and options.
func permissionRequest(s *session, req engine.ApprovalRequired) sdk.RequestPermissionRequest {
	in := inputMap(req.Input)
	title := req.Description
	kind := toolKind(req.ToolName, in)
	content := append([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(cardText(req)))}, diffContent(s.cwd, req.ToolName, in)...)
	return sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.ID), Title: &title, Kind: &kind,
			Locations: s.locations(in), Content: content, RawInput: in},
		Options: permissionOptions(req.ForcePrompt),
	}
}
