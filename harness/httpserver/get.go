package httpserver

import (
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// serveGET opens the session's stream for server-initiated notifications and
// requests (HT-31g, HT-32g), or 405 when the server offers none. With
// Last-Event-ID it resumes the one stream that id came from, replaying the
// events after it and nothing of other streams (HT-45, HT-46).
func (s *Server) serveGET(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Stateless || s.cfg.ModernOnly || !s.cfg.EnableGET {
		s.methodNotAllowed(w, r.Method)
		return
	}
	if !acceptsEventStream(r.Header.Values("Accept")) {
		refuse(w, http.StatusNotAcceptable, codeServerError,
			"GET opens an SSE stream; send Accept: text/event-stream")
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	st, after, err := sess.resumePoint(r.Header.Get(hdrLastEventID))
	if err != nil {
		refuse(w, http.StatusBadRequest, codeServerError, err.Error())
		return
	}
	if s.cfg.Mutant == mutant.GetReturnsJSON {
		writeJSON(w, http.StatusOK, []byte("{}"))
		return
	}
	var others []streamEvent
	if after >= 0 && s.cfg.Mutant == mutant.ReplayOtherStreams {
		others = sess.eventsBesides(st)
	}
	if err := st.attach(r, after, true); err != nil {
		refuse(w, http.StatusNotFound, codeServerError, "the session has ended; initialize a new session without Mcp-Session-Id")
		return
	}
	s.sendStream(w, r, st, contentTypeSSE, others)
}

// acceptsEventStream reports whether Accept values admit text/event-stream.
func acceptsEventStream(accept []string) bool {
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			mediaType, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mediaType)) {
			case contentTypeSSE, "text/*", "*/*":
				return true
			}
		}
	}
	return false
}
