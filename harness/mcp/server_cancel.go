package mcp

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// cancel acts on notifications/cancelled: the request in flight with that
// requestId (its JSON type kept, JR-07) is marked cancelled and its context
// ends with ErrCancelled; its handler stops and its response is not sent
// (CX-04, CN-04). It reports whether a request was found. A cancel for an
// unknown or finished request, or a malformed one, changes nothing and is
// never answered (CN-05, CN-07, CN-08).
func (sess *serverSession) cancel(params json.RawMessage) bool {
	var p struct {
		RequestID *jsonrpc.ID `json:"requestId"`
	}
	if decodeParams(params, &p) != nil || p.RequestID == nil || p.RequestID.IsZero() {
		return false
	}
	sess.mu.Lock()
	rc := sess.inflight[p.RequestID.Key()]
	sess.mu.Unlock()
	if rc == nil {
		return false
	}
	rc.cancelled.Store(true)
	rc.stop(ErrCancelled)
	return true
}
