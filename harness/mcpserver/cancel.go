package mcpserver

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// maxEarlyCancels bounds the cancels remembered for requests not yet seen.
const maxEarlyCancels = 64

// takeEarlyCancel reports whether key was cancelled before its request
// arrived, forgetting it. The caller holds sess.mu.
func (sess *serverSession) takeEarlyCancel(key string) bool {
	for i, k := range sess.early {
		if k == key {
			sess.early = append(sess.early[:i], sess.early[i+1:]...)
			return true
		}
	}
	return false
}

// rememberFinished keeps the id of a request that finished among the
// latest few. The caller holds sess.mu.
func (sess *serverSession) rememberFinished(key string) {
	sess.finished = append(sess.finished, key)
	if len(sess.finished) > maxEarlyCancels {
		sess.finished = sess.finished[1:]
	}
}

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
	if mcp.DecodeParams(params, &p) != nil || p.RequestID == nil || p.RequestID.IsZero() {
		return false
	}
	sess.mu.Lock()
	rc := sess.inflight[p.RequestID.Key()]
	if rc != nil && sess.srv.opts.Mutant == mutant.PlantedResponseAfterCancel {
		sess.plantedHold(rc)
	}
	if rc == nil {
		rc = sess.modernInflight[p.RequestID.Key()]
	}
	if rc == nil && !slices.Contains(sess.finished, p.RequestID.Key()) {
		// A transport may handle the request concurrently, so its cancel can
		// arrive first: remember the id (a few, never reused: JR-05) so the
		// request is cancelled on arrival.
		sess.early = append(sess.early, p.RequestID.Key())
		if len(sess.early) > maxEarlyCancels {
			sess.early = sess.early[1:]
		}
	}
	sess.mu.Unlock()
	if rc == nil {
		return false
	}
	rc.cancel()
	return true
}
