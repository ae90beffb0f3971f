package httpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Session is one MCP session of the server transport: its id, the
// negotiated protocol version and its SSE streams. Without sessions
// (stateless, or before initialize succeeded) a request gets an ephemeral
// session whose ID is empty.
type Session struct {
	srv       *Server
	id        string
	ephemeral bool

	// mu guards the fields below and every stream of the session.
	mu      *sessionLock
	ctx     context.Context // the handlers' context: ends with the session
	cancel  context.CancelFunc
	version string
	get     *serverStream            // the GET stream, made on first use
	streams map[string]*serverStream // by stream id, for resumption
	ended   []string                 // finished POST streams, oldest first
	closed  bool
}

// ID is the session id sent in Mcp-Session-Id; empty without a session.
func (sess *Session) ID() string { return sess.id }

// Stateless reports whether the server serves without sessions, so that
// each request stands alone: no session, no connection outlives it.
func (sess *Session) Stateless() bool { return sess.srv.cfg.Stateless }

// ProtocolVersion is the version negotiated by initialize; without a session,
// the MCP-Protocol-Version of the request, or 2025-03-26 when it has none
// (HT-71). It is empty while initialize is being handled.
func (sess *Session) ProtocolVersion() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.version
}

// newSession makes a session that is not registered yet; until it is, its
// context is the server's. An ephemeral one never gets an id.
func (s *Server) newSession(ephemeral bool, version string) *Session {
	sess := &Session{
		srv:       s,
		ephemeral: ephemeral,
		mu:        newSessionLock(),
		ctx:       s.ctx,
		version:   version,
		streams:   map[string]*serverStream{},
	}
	if !ephemeral {
		sess.id = s.mintSessionID()
	}
	return sess
}

// context is the context of the session's handlers.
func (sess *Session) context() context.Context {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.ctx
}

// mintSessionID returns a cryptographically random id of visible ASCII
// characters only (HT-51, HT-52).
func (s *Server) mintSessionID() string {
	id := rand.Text()
	if s.cfg.Mutant == mutant.SequentialSessionIDs {
		return fmt.Sprintf("mcpconform-session-%d", s.minted.Add(1))
	}
	if s.cfg.Mutant == mutant.SessionIDNotVisible {
		return id[:len(id)/2] + " " + id[len(id)/2:]
	}
	return id
}

// establish registers the session that initialize opened and names it in the
// Mcp-Session-Id header of the response carrying the InitializeResult
// (HT-50). A failed initialize, and a stateless server, open no session. It
// answers 503 itself and returns false when MaxSessions are live.
func (s *Server) establish(w http.ResponseWriter, sess *Session, resp *jsonrpc.Message) bool {
	if resp.Kind() != jsonrpc.KindResult {
		return true
	}
	var result struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(resp.Result, &result)
	sess.mu.Lock()
	sess.version = result.ProtocolVersion
	sess.mu.Unlock()
	if sess.ephemeral {
		return true
	}
	s.mu.Lock()
	full := len(s.sessions) >= s.cfg.MaxSessions || s.closed
	if !full {
		sess.mu.Lock()
		sess.ctx, sess.cancel = context.WithCancel(s.ctx)
		sess.mu.Unlock()
		s.sessions[sess.id] = sess
	}
	s.mu.Unlock()
	if full {
		refuse(w, http.StatusServiceUnavailable, codeServerError, fmt.Sprintf(
			"the server holds its maximum of %d sessions; end one with DELETE and initialize again", s.cfg.MaxSessions))
		return false
	}
	w.Header().Set(hdrSessionID, sess.id)
	return true
}

func (s *Server) lookup(id string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// endSession ends a registered session: later requests naming it get 404
// (HT-56).
func (s *Server) endSession(sess *Session) {
	s.mu.Lock()
	if s.sessions[sess.id] == sess {
		delete(s.sessions, sess.id)
		s.retired = append(s.retired, sess.id)
		if len(s.retired) > retiredSessions {
			s.retired = slices.Delete(s.retired, 0, 1)
		}
	}
	s.mu.Unlock()
	sess.end()
}

// retiredSessions is how many ended session ids the server remembers, so
// that it can tell an ended session from one it never issued.
const retiredSessions = 256

// issued reports whether id names a live session or one that ended lately.
func (s *Server) issued(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id] != nil || slices.Contains(s.retired, id)
}

// end closes the session's streams and cancels its handlers' context.
func (sess *Session) end() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.closed = true
	sess.mu.broadcast()
	if sess.cancel != nil {
		sess.cancel()
	}
}

// getStreamRead reports whether a connection reads the GET stream.
func (sess *Session) getStreamRead() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.get != nil && sess.get.reader != nil
}

// sessionFor finds the session of a request that is not an initialize: the
// one its Mcp-Session-Id names, after checking its MCP-Protocol-Version. It
// answers the refusal itself and returns false: 400 without the header
// (HT-55) or with a bad version (HT-72), 404 for an ended session (HT-56)
// and, beyond the spec, for one it never issued. A stateless server serves
// every request in an ephemeral session.
func (s *Server) sessionFor(w http.ResponseWriter, r *http.Request) (*Session, bool) {
	version, ok := s.checkVersion(w, r)
	if !ok {
		return nil, false
	}
	if s.cfg.Stateless {
		return s.newSession(true, version), true
	}
	id := r.Header.Get(hdrSessionID)
	if id == "" {
		if s.cfg.Mutant == mutant.MissingSessionAccepted {
			return s.newSession(true, version), true
		}
		refuse(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
			"the request has no Mcp-Session-Id header; send the id the initialize response carried, or initialize first")
		return nil, false
	}
	sess := s.lookup(id)
	if sess == nil && s.cfg.Mutant == mutant.UnknownSessionAccepted && !s.issued(id) {
		return s.newSession(true, version), true
	}
	if sess == nil {
		refuse(w, http.StatusNotFound, codeServerError, fmt.Sprintf(
			"session %q is unknown or has ended; initialize a new session without Mcp-Session-Id", id))
		return nil, false
	}
	return sess, true
}

// checkVersion validates the MCP-Protocol-Version header of a request after
// initialize: a malformed or unsupported value gets 400 (HT-72); a missing one
// is read as 2025-03-26 (HT-71). It returns the version the header names.
func (s *Server) checkVersion(w http.ResponseWriter, r *http.Request) (string, bool) {
	values := r.Header.Values(hdrProtocolVersion)
	if len(values) == 0 && s.cfg.Mutant == mutant.MissingVersionRefused {
		refuse(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "MCP-Protocol-Version is missing")
		return "", false
	}
	if len(values) == 0 {
		return versionWithoutHeader, true
	}
	if s.cfg.Mutant == mutant.NoVersionCheck || (len(values) == 1 && slices.Contains(s.cfg.SupportedVersions, values[0])) {
		return values[0], true
	}
	refuse(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
		"MCP-Protocol-Version %q is not supported; send one of %s, normally the version initialize negotiated",
		strings.Join(values, ", "), strings.Join(s.cfg.SupportedVersions, ", ")))
	return "", false
}

// openStream makes the SSE stream that answers one POST, primed with an event
// that has an id and empty data (HT-28).
func (sess *Session) openStream() *serverStream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	st := sess.newStreamLocked()
	if sess.srv.cfg.Mutant != mutant.NoPrimingEvent {
		st.add(nil)
	}
	return st
}

// getStream returns the session's GET stream, making it on first use.
func (sess *Session) getStream() *serverStream {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.get == nil {
		sess.get = sess.newStreamLocked()
	}
	return sess.get
}

func (sess *Session) newStreamLocked() *serverStream {
	st := &serverStream{sess: sess, id: sess.srv.newStreamID(), next: 1}
	sess.streams[st.id] = st
	return st
}

// retireLocked records that a POST stream finished; the session forgets the
// oldest finished streams beyond RetainedStreams, so they can no longer be
// resumed.
func (sess *Session) retireLocked(st *serverStream) {
	sess.ended = append(sess.ended, st.id)
	for len(sess.ended) > sess.srv.cfg.RetainedStreams {
		delete(sess.streams, sess.ended[0])
		sess.ended = slices.Delete(sess.ended, 0, 1)
	}
}

// resumePoint reads a Last-Event-ID: the stream it names and the sequence
// number after which that stream resumes (HT-45). Without the header it is
// the GET stream, from where it stands (-1).
func (sess *Session) resumePoint(lastEventID string) (*serverStream, int64, error) {
	if lastEventID == "" {
		return sess.getStream(), -1, nil
	}
	i := strings.LastIndexByte(lastEventID, '-')
	var seq int64 = -1
	if i > 0 {
		if n, err := strconv.ParseInt(lastEventID[i+1:], 10, 64); err == nil {
			seq = n
		}
	}
	if seq < 0 {
		return nil, 0, fmt.Errorf("Last-Event-ID %q is not an event id of this server (they look like 3-14); resume with the id of the last event you received", lastEventID)
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	st := sess.streams[lastEventID[:i]]
	if st == nil || seq >= st.next {
		return nil, 0, fmt.Errorf("Last-Event-ID %q names no stream this session still keeps; open the GET stream without it, or re-send the request", lastEventID)
	}
	return st, seq, nil
}

// eventsBesides copies the retained message events of every stream but st.
func (sess *Session) eventsBesides(st *serverStream) []streamEvent {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	var out []streamEvent
	for _, other := range sess.streams {
		if other == st {
			continue
		}
		for _, e := range other.events {
			if e.data != nil {
				out = append(out, e)
			}
		}
	}
	return out
}
