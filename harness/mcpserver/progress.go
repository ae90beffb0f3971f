package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// ErrProgressNotIncreasing: a progress value did not exceed the last one
// sent; it was not sent (PR-03).
var ErrProgressNotIncreasing = errors.New("progress must increase with every notification")

// progressToken reads params._meta.progressToken (JR-40): a string or a
// number, kept byte for byte so it is echoed verbatim (CX-03). Any other
// value, or none, is no token.
func progressToken(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if mcp.DecodeParams(params, &p) != nil {
		return nil
	}
	t := p.Meta.ProgressToken
	if len(t) == 0 || !(t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return nil
	}
	return t
}

// progressParams are the params of notifications/progress (PR-02).
type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// Progress reports progress on the request as notifications/progress with
// the request's progress token (CX-03). total > 0 is the expected end;
// otherwise no total is sent. message may be empty. Without a token it is a
// silent no-op (PR-06). progress must exceed the last value sent, or nothing
// is sent and ErrProgressNotIncreasing returned (PR-03); after the handler
// returned it fails with ErrRequestDone (PR-08).
func (rc *RequestContext) Progress(progress, total float64, message string) error {
	token := rc.token
	if token == nil {
		if rc.srv.opts.Mutant != mutant.ProgressWithoutToken {
			return nil
		}
		token = json.RawMessage(rc.id.String())
	}
	if rc.srv.opts.Mutant == mutant.ProgressTokenForeign {
		token = json.RawMessage(`"mcpconform-foreign-token"`)
	}
	p := progressParams{ProgressToken: token, Progress: progress, Message: message}
	if total > 0 {
		p.Total = &total
	}
	note, err := jsonrpc.NewNotification("notifications/progress", p)
	if err != nil {
		return fmt.Errorf("progress: %w", err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.reported && progress <= rc.last && rc.srv.opts.Mutant != mutant.ProgressNotIncreasing {
		return fmt.Errorf("progress %v after %v: %w", progress, rc.last, ErrProgressNotIncreasing)
	}
	if !(rc.srv.opts.Mutant == mutant.ProgressOnListenStream && rc.srv.hub.divert(note)) {
		if err := rc.sendLocked(note); err != nil {
			return err
		}
	}
	rc.reported, rc.last = true, progress
	return nil
}

// lateProgress keeps mutant ProgressAfterResponse's stale notification: one
// more step for a finished request, sent with the next request the session
// makes, so it arrives after the response on every transport. The caller
// holds rc.mu.
func (sess *serverSession) lateProgress(rc *RequestContext) {
	token := rc.token
	if token == nil {
		token = json.RawMessage(rc.id.String())
	}
	note, err := jsonrpc.NewNotification("notifications/progress", progressParams{ProgressToken: token, Progress: rc.last + 1, Message: "late"})
	if err != nil {
		return
	}
	sess.mu.Lock()
	sess.late = note
	sess.mu.Unlock()
}
