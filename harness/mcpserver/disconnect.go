package mcpserver

import (
	"context"
	"errors"
)

// disconnectKey is the context key of a transport's disconnect function.
type disconnectKey struct{}

// ErrCannotDisconnect: the transport cannot close the connection of the
// request's stream and have the client resume it: stdio, an
// application/json answer, a stateless server, a session older than
// 2025-11-25.
var ErrCannotDisconnect = errors.New("the transport cannot close this request's connection for the client to resume")

// WithDisconnect returns a copy of ctx carrying disconnect. A transport that
// answers a request on a stream the client can resume passes it to Handle:
// disconnect closes the connection of that stream once what was sent so far
// is on it, without ending the stream, so the client resumes it (GET and
// Last-Event-ID over HTTP) and gets the rest there, the response included
// (HT-29a, HT-45, SEP-1699).
func WithDisconnect(ctx context.Context, disconnect func()) context.Context {
	return context.WithValue(ctx, disconnectKey{}, disconnect)
}

// Disconnect closes the connection of the stream of the request whose
// context is ctx, through the function WithDisconnect put there; without
// one it fails with ErrCannotDisconnect.
func Disconnect(ctx context.Context) error {
	disconnect, _ := ctx.Value(disconnectKey{}).(func())
	if disconnect == nil {
		return ErrCannotDisconnect
	}
	disconnect()
	return nil
}

// Disconnect closes the connection that carries the request's stream
// mid-call, leaving the stream for the client to resume: messages sent
// afterwards, and the response, reach the client on the resumed stream
// (HT-29a). It fails with ErrCannotDisconnect where the transport cannot do
// that, and with ErrRequestDone once the handler has returned.
func (rc *RequestContext) Disconnect() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.done {
		return ErrRequestDone
	}
	return Disconnect(rc.ctx)
}
