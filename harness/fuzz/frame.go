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
	if f.Method != "" {
		b.WriteString(f.Method + " ")
	}
	b.WriteString(describe(f.Body))
	return b.String()
}
