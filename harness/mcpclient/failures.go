package mcpclient

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// RequestFailure says that the transport gave up on request ID: its
// exchange failed (an HTTP error, an expired session that was not
// recovered, an oversize event) and no response will come. Err is a
// *failure.Error whose kind the call keeps.
type RequestFailure struct {
	ID  jsonrpc.ID
	Err error
}

// FailureSource is implemented by transports that fail single requests
// without ending the session, such as the streamable HTTP client. The
// session fails the pending call with that id at once, with Err.
type FailureSource interface {
	Failures() <-chan RequestFailure
}

// failures returns the transport's failure channel, or nil (which never
// delivers) when it has none.
func (s *Session) failures() <-chan RequestFailure {
	if fs, ok := s.t.(FailureSource); ok {
		return fs.Failures()
	}
	return nil
}

// fail fails the pending call f names; a failure for an id that is not
// pending (answered, cancelled, unknown) is ignored.
func (s *Session) fail(f RequestFailure) {
	s.mu.Lock()
	p := s.pending[f.ID.Key()]
	if p != nil {
		delete(s.pending, p.key)
	}
	s.mu.Unlock()
	if p != nil {
		p.failed <- fmt.Errorf("%s: %w", p.method, f.Err)
	}
}
