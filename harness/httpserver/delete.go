package httpserver

import (
	"net/http"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// serveDELETE ends the session its Mcp-Session-Id names: 204, and every later
// request naming it gets 404 (HT-56, HT-58). Without sessions there is
// nothing to end: 405; so it is under the delete-refused variant, which
// does not let clients end sessions (HT-58 permits that).
func (s *Server) serveDELETE(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Stateless || s.cfg.ModernOnly || s.cfg.Mutant == mutant.DeleteRefused {
		s.methodNotAllowed(w, r.Method)
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	if s.cfg.Mutant != mutant.DeleteKeepsSession {
		s.endSession(sess)
	}
	w.WriteHeader(http.StatusNoContent)
}
