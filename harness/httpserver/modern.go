package httpserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// modern reports whether a POST belongs to the 2026-07-28 era: one request
// without Mcp-Session-Id that names its protocol version in _meta, or is
// server/discover, or whose MCP-Protocol-Version is newer than every legacy
// version the server accepts; on a modern-only server, every single message.
func (s *Server) modern(r *http.Request, msgs []*jsonrpc.Message, batch bool) bool {
	switch {
	case batch:
		return false
	case s.cfg.ModernOnly:
		return true
	case s.cfg.LegacyOnly || msgs[0].Kind() != jsonrpc.KindRequest || r.Header.Get(hdrSessionID) != "":
		return false
	}
	_, modern := mcp.ModernRequest(msgs[0])
	return modern || s.newerThanLegacy(r.Header.Get(hdrProtocolVersion))
}

// newerThanLegacy reports whether version (YYYY-MM-DD) comes after every
// legacy version the server accepts.
func (s *Server) newerThanLegacy(version string) bool {
	if len(version) != len("2006-01-02") {
		return false
	}
	for _, v := range s.cfg.SupportedVersions {
		if version <= v {
			return false
		}
	}
	return true
}

// serveModern answers one 2026-07-28 POST statelessly, with
// application/json or, once the handler sends something about the
// request, SSE (handleModern): no session is minted or read (HT-60). The
// MCP-Protocol-Version header must equal the body's _meta version (HT-73),
// else 400 with -32020 (HT-74); so must Mcp-Method and Mcp-Name mirror the
// body (HT-77, HT-81). The handler's errors about the request
// itself get 400 (an unserved version LC-42, a missing _meta key JR-47, an
// undeclared capability JR-49), an unknown method 404 (HT-75); anything else
// is an ordinary answer, 200.
func (s *Server) serveModern(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if msg.Kind() != jsonrpc.KindRequest {
		// Only requests flow client→server in this era (HT-14); a
		// notification has nothing to answer.
		s.accepted(w)
		return
	}
	meta, _ := mcp.ModernRequest(msg)
	switch {
	case meta.HasVersion:
		if problem := s.headerProblem(r, msg, meta.Version); problem != "" {
			s.writeModern(w, http.StatusBadRequest, jsonrpc.NewError(msg.ID, jsonrpc.CodeHeaderMismatch, problem))
			return
		}
	case msg.Method != "initialize":
		// No version in _meta: the request lacks what every request of
		// this era carries (JR-47).
		s.writeModern(w, http.StatusBadRequest, &jsonrpc.Message{ID: msg.ID, Error: meta.Problem()})
		return
	}
	// A legacy initialize to a modern-only server: the handler names the
	// versions served (LC-48).
	sess := s.newSession(true, meta.Version)
	if s.cfg.Mutant == mutant.ModernMintsSession {
		w.Header().Set(hdrSessionID, s.mintSessionID())
	}
	s.handleModern(w, r, sess, msg, func(resp *jsonrpc.Message) int { return s.modernStatus(resp, meta) })
}

// headerProblem says how a modern POST's headers disagree with its body:
// MCP-Protocol-Version with the _meta version (HT-73, HT-74), Mcp-Method and
// Mcp-Name with the method and its name (HT-77, HT-81); "" when they agree.
func (s *Server) headerProblem(r *http.Request, msg *jsonrpc.Message, version string) string {
	values := r.Header.Values(hdrProtocolVersion)
	if len(values) == 0 && s.cfg.Mutant == mutant.MissingVersionHeaderServed {
		values = []string{version}
	}
	if (len(values) != 1 || values[0] != version) && s.cfg.Mutant != mutant.HeaderMismatchAccepted {
		return fmt.Sprintf("the MCP-Protocol-Version header (%q) differs from the body's _meta %s (%q); send the same version in both",
			strings.Join(values, ", "), mcp.MetaProtocolVersion, version)
	}
	if s.cfg.Mutant == mutant.MirrorHeadersUnchecked {
		return ""
	}
	if s.cfg.Mutant == mutant.MirrorValueCaseFolded && strings.EqualFold(r.Header.Get(mcp.HeaderMethod), msg.Method) {
		r.Header.Set(mcp.HeaderMethod, msg.Method)
	}
	return mcp.MirrorProblem(r.Header, msg)
}

// modernStatus is the HTTP status of a modern answer.
func (s *Server) modernStatus(resp *jsonrpc.Message, meta mcp.ModernMeta) int {
	if resp.Error == nil {
		return http.StatusOK
	}
	switch resp.Error.Code {
	case jsonrpc.CodeUnsupportedProtocolVersion:
		if s.cfg.Mutant == mutant.UnsupportedVersionStatus200 {
			return http.StatusOK
		}
		return http.StatusBadRequest
	case jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingClientCapability:
		return http.StatusBadRequest
	case jsonrpc.CodeInvalidParams:
		if meta.Problem() != nil {
			return http.StatusBadRequest
		}
	case jsonrpc.CodeMethodNotFound:
		if s.cfg.Mutant == mutant.UnknownMethodStatus200 {
			return http.StatusOK
		}
		return http.StatusNotFound
	}
	return http.StatusOK
}

func (s *Server) writeModern(w http.ResponseWriter, status int, resp *jsonrpc.Message) {
	w.Header().Set("Content-Type", s.answerContentType(mcp.ContentTypeJSON))
	w.WriteHeader(status)
	_, _ = w.Write(encodeResponse(resp))
}
