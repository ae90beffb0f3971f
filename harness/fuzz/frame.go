package fuzz

import (
	"sort"
	"strings"
)

// Frame is one thing the fuzzer sends: a stdio line or an HTTP request
// body. The HTTP-only parts (a method other than POST, header overrides)
// are ignored over stdio; a frame marked for one transport is skipped on
// the other.
type Frame struct {
	// Body is the raw bytes: a stdio line (the newline is added on send) or
	// an HTTP request body.
	Body []byte
	// Only, when set ("stdio" or "http"), limits the frame to one transport.
	Only string
	// Method is the HTTP method; "" is POST. DELETE ends the session.
	Method string
	// Header overrides request headers over HTTP: a value replaces the
	// header the executor would send, "" removes it. The session header's
	// value "foreign" stands for a session id the server never issued.
	Header map[string]string
	// Wait says what the executor does once the frame is sent; its zero
	// value awaits the answers (see Wait).
	Wait Wait
}

// Wait is what the executor does once a frame is sent: the interleaving
// a case needs, recorded in it so that its replay sends and waits the same.
type Wait string

const (
	// WaitAnswers awaits the answers the frame requires, and those of the
	// frames sent without waiting before it, then a probe ping's: the end
	// of a group of frames in flight together.
	WaitAnswers Wait = ""
	// WaitNone goes on to the next frame at once: its answers are awaited
	// with the next frame that waits (or after the last frame), so that
	// several requests are in flight together.
	WaitNone Wait = "nowait"
	// WaitProgress goes on once the request shows it runs: a progress
	// notification for its progressToken, or its answer, or after the
	// timeout (then its cancel is not judged). Its answers are awaited as
	// WaitNone's are. A cancel sent after it races no answer of its own.
	WaitProgress Wait = "until-progress"
)

// verb is the case-file verb that sends a frame with w.
func (w Wait) verb() string {
	if w == WaitAnswers {
		return "send"
	}
	return "send-" + string(w)
}

// For reports whether the frame is sent over transport.
func (f Frame) For(transport string) bool { return f.Only == "" || f.Only == transport }

// headerNames lists the overridden headers in order, for a stable rendering.
func (f Frame) headerNames() []string {
	names := make([]string, 0, len(f.Header))
	for name := range f.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// String renders the frame in a short form for progress lines and test
// failures: its method when it is a JSON-RPC message, else its length.
func (f Frame) String() string {
	var b strings.Builder
	if f.Wait != WaitAnswers {
		b.WriteString(string(f.Wait) + " ")
	}
	if f.Method != "" {
		b.WriteString(f.Method + " ")
	}
	b.WriteString(describe(f.Body))
	return b.String()
}
