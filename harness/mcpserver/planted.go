package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The planted bugs' own code (mutant.Planted): each is consulted at one
// place in the reference and does its harm here.

// plantedCrash is mutant PlantedCrashOnString: a tool call whose arguments
// hold a string with U+0000, as a key or a value at any depth, ends the
// process at once with status 3.
func plantedCrash(args json.RawMessage) {
	var v any
	if json.Unmarshal(args, &v) == nil && holdsNUL(v) {
		os.Exit(3)
	}
}

// holdsNUL reports whether a decoded JSON value holds a string, key or
// value, containing U+0000.
func holdsNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case []any:
		for _, x := range v {
			if holdsNUL(x) {
				return true
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) || holdsNUL(x) {
				return true
			}
		}
	}
	return false
}

// plantedLeakBytes is what one call of test_simple_text keeps under mutant
// PlantedLeak.
const plantedLeakBytes = 8 << 20

var (
	leakMu sync.Mutex
	leaked [][]byte // mutant PlantedLeak's memory, referenced forever
)

// plantedLeak is mutant PlantedLeak: it keeps 8 MiB with every page
// written, so the memory counts in the process's RSS.
func plantedLeak() {
	b := make([]byte, plantedLeakBytes)
	for i := 0; i < len(b); i += 512 {
		b[i] = 1
	}
	leakMu.Lock()
	leaked = append(leaked, b)
	leakMu.Unlock()
}

// PlantedDuplicateTrigger reports whether req is the one request mutant
// PlantedDuplicateReply answers twice: logging/setLevel with level
// "emergency". The transports, which write the answers, consult it.
func PlantedDuplicateTrigger(req *jsonrpc.Message) bool {
	if req.Kind() != jsonrpc.KindRequest || req.Method != "logging/setLevel" {
		return false
	}
	var p struct {
		Level string `json:"level"`
	}
	return json.Unmarshal(req.Params, &p) == nil && p.Level == "emergency"
}

// plantedWedge is the state of mutant PlantedWedgeAfterUnknownCancel in
// one session.
type plantedWedge struct {
	seen    map[string]bool // ids of the requests received
	unknown map[string]bool // ids cancelled but never received
}

// wedgeOf is the wedge state of the session with key. It is kept by the
// server, not the session, so that it outlives the session's state, which
// is dropped when the transport's context ends while requests are still
// being answered (stdin's end).
func (s *Server) wedgeOf(key string) *plantedWedge {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wedges == nil {
		s.wedges = map[string]*plantedWedge{}
	}
	w := s.wedges[key]
	if w == nil {
		w = &plantedWedge{seen: map[string]bool{}, unknown: map[string]bool{}}
		s.wedges[key] = w
	}
	return w
}

// wedge is mutant PlantedWedgeAfterUnknownCancel: once a
// notifications/cancelled names a requestId the session never received, no
// request gets its response. A request that arrives after its own cancel
// (a transport handles requests concurrently) still counts as received, so
// only an id that never comes wedges the session.
func (sess *serverSession) wedge(m *jsonrpc.Message, handle func() *jsonrpc.Message) *jsonrpc.Message {
	w := sess.srv.wedgeOf(sess.key)
	sess.mu.Lock()
	switch {
	case m.Kind() == jsonrpc.KindRequest:
		w.seen[m.ID.Key()] = true
		delete(w.unknown, m.ID.Key())
	case m.Kind() == jsonrpc.KindNotification && m.Method == "notifications/cancelled":
		var p struct {
			RequestID *jsonrpc.ID `json:"requestId"`
		}
		if mcp.DecodeParams(m.Params, &p) == nil && p.RequestID != nil && !p.RequestID.IsZero() && !w.seen[p.RequestID.Key()] {
			w.unknown[p.RequestID.Key()] = true
		}
	}
	sess.mu.Unlock()
	resp := handle()
	sess.mu.Lock()
	stuck := len(w.unknown) > 0
	sess.mu.Unlock()
	if stuck && m.Kind() == jsonrpc.KindRequest {
		return nil
	}
	return resp
}

// plantedImageWithoutMimeType is mutant PlantedImageWithoutMimeType's
// image block: the reference's image without its mimeType.
func plantedImageWithoutMimeType() json.RawMessage {
	var block map[string]any
	_ = json.Unmarshal(imageContent(), &block)
	delete(block, "mimeType")
	b, _ := json.Marshal(block)
	return b
}

// plantedDrift is mutant PlantedStructuredDrift: the session's first call
// of test_structured_content gets weather as it is, every later one its
// temperature as a string.
func (sess *serverSession) plantedDrift(weather map[string]any) map[string]any {
	sess.mu.Lock()
	sess.structured++
	n := sess.structured
	sess.mu.Unlock()
	if n < 2 {
		return weather
	}
	drifted := map[string]any{}
	for k, v := range weather {
		drifted[k] = v
	}
	drifted["temperature"] = fmt.Sprint(weather["temperature"])
	return drifted
}

// plantedCancelledCode is the error mutant PlantedResponseAfterCancel
// answers a cancelled request with: LSP's RequestCancelled, which some
// JSON-RPC servers send where MCP asks for no response at all.
const plantedCancelledCode = -32800

// plantedHold is mutant PlantedResponseAfterCancel: rc, found in flight by
// notifications/cancelled, is marked cancelled at once (so that its
// handler's answer is never written, whatever the race with its end) and
// its error "request cancelled" is held for the transport to write just
// before the connection's next answer (PlantedHeld). The caller holds
// sess.mu, as finish does when it takes a request out of flight, so the
// request is either still in flight and silenced here, or finished and
// not held.
func (sess *serverSession) plantedHold(rc *RequestContext) {
	rc.cancelled.Store(true)
	if len(sess.held) < maxEarlyCancels {
		sess.held = append(sess.held, jsonrpc.NewError(rc.id, plantedCancelledCode, "request cancelled"))
	}
}

// PlantedHeld takes the answers mutant PlantedResponseAfterCancel holds
// for the session of info: the stdio transport writes them just before
// the next answer it writes, in the same write, so that a client reads
// them after its cancel took effect and before that answer.
func (s *Server) PlantedHeld(info SessionInfo) []*jsonrpc.Message {
	s.mu.Lock()
	sess := s.sessions[sessionKey(info)]
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	held := sess.held
	sess.held = nil
	return held
}
