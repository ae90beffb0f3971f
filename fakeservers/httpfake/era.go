package httpfake

import (
	"fmt"
	"net/http"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The modern era over HTTP (Options.Era): a request is admitted by its
// _meta (fakeservers.Era.Admit) and its headers, served without a session,
// and answered with the status 2026-07-28 gives its error: 400 for a
// missing _meta (JR-47), a version not served (LC-42) or headers that do
// not mirror the body (HT-74, HT-81), 404 for an unknown method (HT-75).

// checkEra rejects an era the case cannot serve, and StrictInit beside
// anything but a legacy fake with sessions.
func checkEra(o Options, c fakeCase) error {
	if _, err := fakeservers.ParseEra(string(o.Era)); err != nil {
		return err
	}
	if o.Era == fakeservers.Modern && (c.sessions || c.legacyOnly != "") {
		why := c.legacyOnly
		if why == "" {
			why = "expires sessions"
		}
		return fmt.Errorf("the case %s, which the modern era does not have; serve it in the legacy era", why)
	}
	if o.StrictInit && (o.Era.ServesModern() || o.Stateless) {
		return fmt.Errorf("StrictInit is for a legacy fake with sessions, and Era is %q, Stateless %v; drop one", o.Era, o.Stateless)
	}
	return nil
}

// admit decides how x, a single request, is served: its admission, or, when
// it is refused, the refusal answered (true).
func (f *Fake) admit(x *exchange, m *jsonrpc.Message) (refused bool) {
	x.adm = f.o.Era.Admit(m)
	refusal := x.adm.Refusal
	if x.adm.Modern && (refusal == nil || refusal.Code == jsonrpc.CodeUnsupportedProtocolVersion) {
		// A header that disagrees with the body is told before the
		// version the body names (HT-74).
		if problem := headerRefusal(x.r.Header, m, x.adm.Version); problem != nil {
			refusal = problem
		}
	}
	if refusal == nil {
		return false
	}
	x.reply(&jsonrpc.Message{ID: m.ID, Error: refusal})
	return true
}

// headerRefusal is the -32020 a modern POST gets when its
// MCP-Protocol-Version header is not the body's _meta version (HT-73,
// HT-74), or its Mcp-Method or Mcp-Name header does not mirror the body
// (HT-77, HT-81); nil when they agree.
func headerRefusal(h http.Header, m *jsonrpc.Message, version string) *jsonrpc.Error {
	mismatch := func(msg string) *jsonrpc.Error { return &jsonrpc.Error{Code: jsonrpc.CodeHeaderMismatch, Message: msg} }
	if got := h.Values(mcp.HeaderProtocolVersion); len(got) != 1 || got[0] != version {
		return mismatch(fmt.Sprintf("the POST needs one %s header equal to the body's _meta %q (%q); it has %q",
			mcp.HeaderProtocolVersion, mcp.MetaProtocolVersion, version, got))
	}
	if problem := mcp.MirrorProblem(h, m); problem != "" {
		return mismatch(problem)
	}
	return nil
}

// modern reports whether x is served in the modern era: it was admitted to
// it, or the fake serves nothing else (then even a notification carries no
// session).
func (x *exchange) modern() bool { return x.adm.Modern || x.f.o.Era == fakeservers.Modern }

// reply answers x with m as JSON: with 200, or for an error of the modern
// era with the status 2026-07-28 gives it.
func (x *exchange) reply(m *jsonrpc.Message) {
	status := http.StatusOK
	if m.Error != nil && x.modern() {
		status = modernErrorStatus(m.Error.Code)
	}
	x.jsonBody(status, fakeservers.Encode(m))
}

// modernErrorStatus is the HTTP status of a 2026-07-28 error answer.
func modernErrorStatus(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound // HT-75
	case jsonrpc.CodeInvalidParams, jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingClientCapability, jsonrpc.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest // JR-47, HT-74, JR-49, LC-42
	}
	return http.StatusOK
}
