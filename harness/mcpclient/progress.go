package mcpclient

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Progress on the client's side: each tool call carries a progress token
// of its own (PR-01), and a server request the client works on (a fixed
// answer: sampling, elicitation, roots) that carries a token gets its
// progress before the reply: strictly increasing, with that token only,
// none after the reply (PR-03, PR-06, PR-08).

// progressMeta is the _meta of a tool call: its progress token.
type progressMeta struct {
	ProgressToken string `json:"progressToken"`
}

// progressMeta is a fresh token, unique among the session's requests.
func (s *Session) progressMeta() *progressMeta {
	return &progressMeta{ProgressToken: fmt.Sprintf("mcpconform-progress-%d", s.tokens.Add(1))}
}

// progressSteps is how many notifications/progress the client sends for a
// request it works on, the last at progress == total.
const progressSteps = 2

// progress sends the progress of the work on server request req (worked:
// the client answers it with a result of its own) when req carries a
// progress token: progressSteps notifications, before the reply. It
// returns what to do after the reply: nothing, or for mutant
// ClientProgressAfterResponse the last notification, sent late.
func (s *Session) progress(req *jsonrpc.Message, worked bool) (late func()) {
	late = func() {}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if !worked || json.Unmarshal(req.Params, &p) != nil || p.Meta.ProgressToken == nil {
		return late
	}
	for step := 1; step <= progressSteps; step++ {
		n, err := jsonrpc.NewNotification("notifications/progress", map[string]any{
			"progressToken": p.Meta.ProgressToken, "progress": step, "total": progressSteps,
			"message": fmt.Sprintf("answering %s: step %d of %d", req.Method, step, progressSteps)})
		if err != nil {
			return late // a token that decoded always encodes again
		}
		if step == progressSteps && s.opts.Mutant == mutant.ClientProgressAfterResponse {
			return func() { _ = s.t.Send(n) }
		}
		_ = s.t.Send(n) // a failed send: dispatch learns from Done that the transport ended
	}
	return late
}
