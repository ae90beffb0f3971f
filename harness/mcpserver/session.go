package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// lifecycle is where a session stands in the legacy handshake (LC-02 … LC-07).
type lifecycle int

const (
	// fresh: no initialize answered yet.
	fresh lifecycle = iota
	// initialized: initialize answered; notifications/initialized not seen.
	initialized
	// ready: the client sent notifications/initialized; the server may send
	// it requests (LC-07).
	ready
)

// clientCapabilities are the client features initialize declared (LC-11).
type clientCapabilities struct {
	sampling   bool
	elicitForm bool
	elicitURL  bool
	roots      bool
}

// serverSession is the server's state for one session.
type serverSession struct {
	srv *Server
	key string
	// stateless marks the state of a transport that serves each message
	// apart (connectionless): no handshake pins its requests to an era.
	stateless bool

	mu          sync.Mutex
	stage       lifecycle
	version     string
	caps        clientCapabilities
	level       int                              // index in logLevels of the least severe level sent (CX-02)
	inflight    map[string]*RequestContext       // requests being handled, by id key
	early       []string                         // ids cancelled before their request was handled (bounded)
	finished    []string                         // ids of the latest finished requests (bounded)
	waiting     map[string]chan *jsonrpc.Message // the server's requests awaiting replies, by id key
	nextID      int64                            // ids of the server's own requests
	late        *jsonrpc.Message                 // mutant ProgressAfterResponse's stale progress
	subscribed  map[string]bool                  // resource URIs the client subscribed to (at most maxSubscriptions)
	modern      bool                             // the state of one 2026-07-28 request
	structured  int                              // mutant PlantedStructuredDrift's count of test_structured_content calls
	held        []*jsonrpc.Message               // mutant PlantedResponseAfterCancel's answers to cancelled requests, not yet written
	watched     <-chan struct{}                  // the Done channel whose end drops the state
	stopWatched func() bool

	// modernInflight are the 2026-07-28 requests in flight on the
	// connection, by id key, for notifications/cancelled (track).
	modernInflight map[string]*RequestContext
}

// defaultLogLevel is the threshold before any logging/setLevel: info and
// more severe are sent, debug is not (LG-05 lets the server choose).
const defaultLogLevel = "info"

// sessionKey is the key of a session's state: its id, "" without one.
func sessionKey(info SessionInfo) string {
	if info == nil {
		return ""
	}
	return info.ID()
}

// session returns the state of info's session, making it on first use. The
// state is dropped when ctx ends; ctx is the context a transport gives the
// session's messages, so that is when the session ends.
func (s *Server) session(ctx context.Context, info SessionInfo) *serverSession {
	key := sessionKey(info)
	s.mu.Lock()
	sess := s.sessions[key]
	if sess == nil {
		level := levelIndex(defaultLogLevel)
		if s.opts.Mutant == mutant.LogsBeforeSetLevel {
			level = 0 // every level until logging/setLevel, as LG-05 permits
		}
		sess = &serverSession{
			srv:       s,
			key:       key,
			stateless: connectionless(info),
			level:     level,
			inflight:  map[string]*RequestContext{},
			waiting:   map[string]chan *jsonrpc.Message{},
		}
		s.sessions[key] = sess
	}
	s.mu.Unlock()
	sess.watch(ctx)
	return sess
}

// watch drops the session's state when ctx ends. A transport may hand the
// first messages of a session a wider context (the server's, while the
// session is being established); the latest context is the one watched.
func (sess *serverSession) watch(ctx context.Context) {
	done := ctx.Done()
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if done == nil || done == sess.watched {
		return
	}
	if sess.stopWatched != nil {
		sess.stopWatched()
	}
	sess.watched = done
	sess.stopWatched = context.AfterFunc(ctx, sess.drop)
}

// drop forgets the session's state.
func (sess *serverSession) drop() {
	s := sess.srv
	s.mu.Lock()
	if s.sessions[sess.key] == sess {
		delete(s.sessions, sess.key)
	}
	s.mu.Unlock()
}

// elicitationModesSince is the first version whose elicitation has modes
// (form and url) and the enum shapes of SEP-1330 (EL-01, EL-05): before it
// elicitation is form only, with flat enums.
const elicitationModesSince = "2025-11-25"

// readCapabilities reads initialize's capabilities for the negotiated
// version: each feature is declared by an object under its name.
// elicitation with neither "form" nor "url", or before 2025-11-25 whatever
// it holds, means form mode only (EL-01).
func readCapabilities(raw json.RawMessage, version string) clientCapabilities {
	var c map[string]json.RawMessage
	_ = json.Unmarshal(raw, &c)
	isObject := func(v json.RawMessage) bool { return len(v) > 0 && v[0] == '{' }
	caps := clientCapabilities{sampling: isObject(c["sampling"]), roots: isObject(c["roots"])}
	if e := c["elicitation"]; isObject(e) {
		var modes map[string]json.RawMessage
		_ = json.Unmarshal(e, &modes)
		caps.elicitForm = isObject(modes["form"])
		caps.elicitURL = isObject(modes["url"])
		if modes["form"] == nil && modes["url"] == nil || version < elicitationModesSince {
			caps.elicitForm = true
		}
		caps.elicitURL = caps.elicitURL && version >= elicitationModesSince
	}
	return caps
}

// protocolVersion is the session's negotiated version (a 2026-07-28
// request's own).
func (sess *serverSession) protocolVersion() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.version
}

// capabilities returns what the client declared.
func (sess *serverSession) capabilities() clientCapabilities {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.caps
}

// isReady reports whether the client sent notifications/initialized.
func (sess *serverSession) isReady() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.stage == ready
}
