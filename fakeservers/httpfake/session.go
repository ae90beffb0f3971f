package httpfake

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// session is one session a fake handed out. Its fields are guarded by
// the fake's mu.
type session struct {
	id      string
	index   int // creation order, from 0: the first session is the one cases expire
	limit   int // it expires after this many POSTs carrying it; 0: never
	seen    int // POSTs that carried it so far
	expired bool
}

// newSession creates a session with a fresh, unguessable id of visible ASCII
// (HT-51, HT-52). The first session gets the case's expireFirstAfter limit.
func (f *Fake) newSession() *session {
	id := make([]byte, 16)
	_, _ = rand.Read(id) // crypto/rand.Read never fails
	s := &session{id: hex.EncodeToString(id)}
	f.mu.Lock()
	defer f.mu.Unlock()
	s.index = f.made
	f.made++
	if s.index == 0 {
		s.limit = f.b.expireFirstAfter
	}
	f.sessions[s.id] = s
	return s
}

// useSession returns the live session id names, or nil when it is unknown,
// ended or expired. A POST counts against the session's limit (expiring it
// here when it passes the limit); GET and DELETE do not, so a client's
// optional GET stream never shifts the count.
func (f *Fake) useSession(id string, post bool) *session {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[id]
	if s == nil || s.expired {
		return nil
	}
	if !post {
		return s
	}
	s.seen++
	if s.limit > 0 && s.seen > s.limit {
		s.expired = true
		return nil
	}
	return s
}

// expireSession makes every later request carrying s's id get 404.
func (f *Fake) expireSession(s *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.expired = true
}

// endSession forgets s (DELETE, HT-58): its id is unknown from now on.
func (f *Fake) endSession(s *session) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, s.id)
}

// sessionOK checks the session x carries and sets x.sess; when the check
// fails it answers x and returns false. A stateless fake ignores the header.
// A known live session is required, except on POSTs that only carry
// initialize or server/discover (initialize alone when StrictInit): an
// unknown or expired id gets 404 (HT-56), a missing one 400 (HT-55), with
// a -32600 body for a request when StrictInit.
func (f *Fake) sessionOK(x *exchange) bool {
	if f.b.stateless {
		return true
	}
	id := x.r.Header.Get(mcp.HeaderSessionID)
	if id == "" {
		post := x.r.Method == http.MethodPost
		switch {
		case post && opensSession(x.msgs, !f.o.StrictInit):
			return true
		case post && f.o.StrictInit && !x.batch && x.msgs[0].Kind() == jsonrpc.KindRequest:
			x.jsonBody(http.StatusBadRequest, fakeservers.Encode(fakeservers.NotInitialized(x.msgs[0])))
		default:
			x.plain(http.StatusBadRequest, "missing "+mcp.HeaderSessionID+" header: initialize first")
		}
		return false
	}
	x.sess = f.useSession(id, x.r.Method == http.MethodPost)
	if x.sess == nil {
		x.plain(http.StatusNotFound, "session not found or expired: initialize again without "+mcp.HeaderSessionID)
		return false
	}
	return true
}

// opensSession reports whether msgs are all initialize (or, with probe,
// server/discover) requests: what a client sends before it has a session.
func opensSession(msgs []*jsonrpc.Message, probe bool) bool {
	for _, m := range msgs {
		if m.Kind() != jsonrpc.KindRequest || (m.Method != methodInitialize && !(probe && m.Method == methodDiscover)) {
			return false
		}
	}
	return len(msgs) > 0
}
