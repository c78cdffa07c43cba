package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/engine"
)

// optionIDs name the card's choices on the wire (approvalcard.Options
// decides which a call offers: no "allow for the session" for a call only
// a yes to this one call approves).
var optionIDs = map[approvalcard.Choice]string{
	approvalcard.AllowOnce:    "allow_once",
	approvalcard.AllowSession: "allow_session",
	approvalcard.AllowAlways:  "allow_always",
	approvalcard.Deny:         "deny",
	approvalcard.Abort:        "abort",
}

var optionKinds = map[approvalcard.Choice]sdk.PermissionOptionKind{
	approvalcard.AllowOnce:    sdk.PermissionOptionKindAllowOnce,
	approvalcard.AllowSession: sdk.PermissionOptionKindAllowAlways,
	approvalcard.AllowAlways:  sdk.PermissionOptionKindAllowAlways,
	approvalcard.Deny:         sdk.PermissionOptionKindRejectOnce,
	approvalcard.Abort:        sdk.PermissionOptionKindRejectOnce,
}

// approval asks the client what the TUI's card would ask, on its own
// goroutine so the pump keeps reading, and answers the engine. The wait
// is bounded: a client that never answers denies the call.
func (s *session) approval(req engine.ApprovalRequired) {
	ctx := s.a.ctx
	if t := s.current(); t != nil {
		ctx = t.ctx
	}
	go func() {
		ctx, cancel := context.WithTimeout(ctx, s.a.opts.PermissionWait)
		defer cancel()
		resp, err := s.a.conn.RequestPermission(ctx, permissionRequest(s, req))
		if err != nil {
			s.a.opts.Log.Warn("permission request unanswered: the call is denied", "tool", req.ToolName, "err", err)
		}
		s.eng.Submit(approvalcard.Op(req.ID, choice(req, resp, err)))
	}()
}

// choice is the client's answer. A cancelled request, a timeout, a broken
// connection or an option the card did not offer is a deny: only a yes
// authorises.
func choice(req engine.ApprovalRequired, resp sdk.RequestPermissionResponse, err error) approvalcard.Choice {
	if err != nil || resp.Outcome.Selected == nil {
		return approvalcard.Deny
	}
	for _, c := range approvalcard.Options(req) {
		if optionIDs[c] == string(resp.Outcome.Selected.OptionId) {
			return c
		}
	}
	return approvalcard.Deny
}

// permissionRequest is the session/request_permission for req: the call's
// title, kind and locations, the card's text, the File change as a diff,
// and the card's options.
func permissionRequest(s *session, req engine.ApprovalRequired) sdk.RequestPermissionRequest {
	in := inputMap(req.Input)
	title := req.Description
	kind := toolKind(req.ToolName, in)
	content := append([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(approvalcard.Markdown(req)))},
		diffContent(s.cwd, req.ToolName, in)...)
	var opts []sdk.PermissionOption
	for _, c := range approvalcard.Options(req) {
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(optionIDs[c]), Name: c.Text(), Kind: optionKinds[c]})
	}
	return sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.ID), Title: &title, Kind: &kind,
			Locations: s.locations(in), Content: content, RawInput: in},
		Options: opts,
	}
}
