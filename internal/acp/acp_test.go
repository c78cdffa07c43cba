package acp

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codewhale/codewhale/internal/approvalcard"
	"github.com/codewhale/codewhale/internal/engine"
)

// TestOnlyAYesAuthorises: an error, a cancelled request, or an option the
// card did not offer (allow_session on an explicit approval) is a deny.
func TestOnlyAYesAuthorises(t *testing.T) {
	t.Parallel()
	ordinary := engine.ApprovalRequired{ID: "c", ToolName: "Bash"}
	explicit := engine.ApprovalRequired{ID: "c", ToolName: "File", ForcePrompt: true}
	selected := func(id string) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
	}
	cancelled := sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}
	cases := []struct {
		req  engine.ApprovalRequired
		resp sdk.RequestPermissionResponse
		err  error
		want approvalcard.Choice
	}{
		{ordinary, selected("allow_once"), nil, approvalcard.AllowOnce},
		{ordinary, selected("allow_session"), nil, approvalcard.AllowSession},
		{ordinary, selected("abort"), nil, approvalcard.Abort},
		{ordinary, selected("allow_once"), errors.New("timeout"), approvalcard.Deny},
		{ordinary, cancelled, nil, approvalcard.Deny},
		{ordinary, selected("yes please"), nil, approvalcard.Deny},
		{explicit, selected("allow_session"), nil, approvalcard.Deny},
		{explicit, selected("allow_always"), nil, approvalcard.Deny},
	}
	for _, c := range cases {
		if got := choice(c.req, c.resp, c.err); got != c.want {
			t.Errorf("choice(%v, %+v, %v) = %s, want %s", c.req.ForcePrompt, c.resp.Outcome.Selected, c.err, got.Text(), c.want.Text())
		}
	}
}

// TestProtocolErrorsAnswerTheSDKsDroppedLines: the SDK's log records of a
// line it could not decode become JSON-RPC errors on the wire, and every
// record still reaches the log.
func TestProtocolErrorsAnswerTheSDKsDroppedLines(t *testing.T) {
	t.Parallel()
	var wire, logs bytes.Buffer
	log := slog.New(protocolErrors{next: slog.NewTextHandler(&logs, nil), out: &wire})
	log.Error(sdkParseFailed, "err", "x", "raw", `{"jsonrpc":`)
	log.Error(sdkParseFailed, "err", "x", "raw", `[1]`)
	log.Error(sdkNoMethod, "raw", `{}`)
	log.Debug("quiet")
	if got, want := wire.String(), parseError+invalidRequest+invalidRequest; got != want {
		t.Errorf("wire = %q, want %q", got, want)
	}
	if n := bytes.Count(logs.Bytes(), []byte("\n")); n != 3 {
		t.Errorf("logged %d records, want the 3 at or above Info: %s", n, logs.String())
	}
}

// TestToolKinds: the protocol's kind follows the tool and its action.
func TestToolKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, action string
		want         sdk.ToolKind
	}{
		{"Bash", "run", sdk.ToolKindExecute}, {"File", "read", sdk.ToolKindRead}, {"File", "write", sdk.ToolKindEdit},
		{"File", "search_content", sdk.ToolKindSearch}, {"Web", "fetch", sdk.ToolKindFetch}, {"Web", "search", sdk.ToolKindSearch},
		{"work_update", "", sdk.ToolKindThink}, {"mcp_x_y", "", sdk.ToolKindOther},
	}
	for _, c := range cases {
		if got := toolKind(c.name, map[string]any{"action": c.action}); got != c.want {
			t.Errorf("toolKind(%s, %s) = %s, want %s", c.name, c.action, got, c.want)
		}
	}
}
