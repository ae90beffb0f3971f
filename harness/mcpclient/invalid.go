package mcpclient

// InvalidRequestAnswerer is implemented by transports that meet what never
// reaches the session as a message: a JSON object the server sends that is
// no valid request (jsonrpc not "2.0", no method, an id of the wrong type).
// Once told, they answer it with -32600, carrying its id when it can be read
// (JR-21), and go on; until then they ignore it. The session tells them once
// its legacy handshake is done: a 2026-07-28 client sends no responses at
// all (JR-17).
type InvalidRequestAnswerer interface{ AnswerInvalidRequests() }

// answerInvalidRequests has the transport answer invalid requests, when it
// can (InvalidRequestAnswerer).
func (s *Session) answerInvalidRequests() {
	if a, ok := s.t.(InvalidRequestAnswerer); ok {
		a.AnswerInvalidRequests()
	}
}
