// Package failure holds the typed failures of the reference transports and
// sessions, so callers can branch on what went wrong with errors.Is:
// protocol, timeout, cancelled, connection and shutdown.
package failure

import "errors"

// The failure kinds. Every error the reference client returns for a session or
// a call wraps exactly one of them.
var (
	// ErrProtocol: the peer broke the protocol (damaged line, budget spent,
	// invalid message); the session is over.
	ErrProtocol = errors.New("protocol failure")
	// ErrTimeout: a deadline passed (a call's timeout, the startup timeout).
	ErrTimeout = errors.New("timeout")
	// ErrCancelled: the caller cancelled the request.
	ErrCancelled = errors.New("cancelled")
	// ErrConnection: the transport broke (process exited, pipe closed, HTTP failure).
	ErrConnection = errors.New("connection failure")
	// ErrShutdown: the session was closed by its owner.
	ErrShutdown = errors.New("session closed")
)

// Error is a failure of one kind with the operation it happened in and a detail
// message. The detail never carries bytes the peer wrote to stderr (NG-06).
type Error struct {
	Kind   error  // one of the Err* sentinels
	Op     string // what was being done: "initialize", "tools/call", "read stdout"
	Detail string
	Err    error // an underlying cause, optional
}

// New returns a failure of kind during op.
func New(kind error, op, detail string) *Error {
	return &Error{Kind: kind, Op: op, Detail: detail}
}

// Wrap returns a failure of kind during op caused by err.
func Wrap(kind error, op string, err error) *Error {
	return &Error{Kind: kind, Op: op, Err: err}
}

func (e *Error) Error() string {
	s := e.Op + ": " + e.Kind.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches the failure's kind, so errors.Is(err, failure.ErrTimeout) works.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the name of the failure kind err carries ("protocol",
// "timeout", "cancelled", "connection", "shutdown"), or "other".
func KindOf(err error) string {
	switch {
	case errors.Is(err, ErrProtocol):
		return "protocol"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, ErrCancelled):
		return "cancelled"
	case errors.Is(err, ErrConnection):
		return "connection"
	case errors.Is(err, ErrShutdown):
		return "shutdown"
	}
	return "other"
}
