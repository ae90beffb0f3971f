package httpfake

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Method names the HTTP fakes treat specially.
const (
	methodInitialize = fakeservers.MethodInitialize
	methodDiscover   = mcp.MethodDiscover
	methodToolsCall  = fakeservers.MethodToolsCall
	methodCancelled  = "notifications/cancelled"
)

// dispatch is the base behaviour: one endpoint path; POST, GET and DELETE
// (a modern-only fake: POST alone); the case's hooks where it has them.
func (f *Fake) dispatch(x *exchange) {
	if x.r.URL.Path != mcp.EndpointPath {
		x.plain(http.StatusNotFound, "no MCP endpoint at "+x.r.URL.Path+"; the endpoint is "+mcp.EndpointPath)
		return
	}
	if f.b.route != nil && f.b.route(x) {
		return
	}
	switch {
	case x.r.Method == http.MethodPost:
		f.post(x)
	case f.o.Era == fakeservers.Modern:
		x.w.Header().Set("Allow", "POST")
		x.plain(http.StatusMethodNotAllowed, x.r.Method+" is not supported: this server serves 2026-07-28 only, with no GET stream and no session; POST each request")
	case x.r.Method == http.MethodGet:
		f.get(x)
	case x.r.Method == http.MethodDelete:
		f.delete(x)
	default:
		x.w.Header().Set("Allow", "GET, POST, DELETE")
		x.plain(http.StatusMethodNotAllowed, x.r.Method+" is not supported; use POST, GET or DELETE")
	}
}

// post answers one POST: a message or a batch. A single request goes through
// the case's hooks; a batch is answered message by message by the base
// handlers (a JSON array of the responses, or 202 when it holds none).
func (f *Fake) post(x *exchange) {
	switch {
	case errors.Is(x.bodyErr, errBodyTooLarge):
		x.plain(http.StatusRequestEntityTooLarge, "request body larger than 4 MiB")
		return
	case x.bodyErr != nil:
		x.left() // the body broke off: the client went away
		return
	case x.decodeErr != nil:
		x.jsonBody(http.StatusBadRequest, fakeservers.Encode(jsonrpc.NewError(jsonrpc.ID{}, jsonrpc.CodeParseError, "not a JSON-RPC message or batch: "+x.decodeErr.Error())))
		return
	}
	if x.batch && f.o.Era == fakeservers.Modern {
		x.jsonBody(http.StatusBadRequest, fakeservers.Encode(jsonrpc.NewError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "a POST body holds one message: 2026-07-28 has no batches (JR-37)")))
		return
	}
	if !x.batch && x.msgs[0].Kind() == jsonrpc.KindRequest && f.admit(x, x.msgs[0]) {
		return
	}
	if !x.modern() && !f.sessionOK(x) {
		return
	}
	if x.batch {
		f.batch(x)
		return
	}
	m := x.msgs[0]
	switch m.Kind() {
	case jsonrpc.KindRequest:
		f.request(x, m)
	case jsonrpc.KindNotification:
		if m.Method == methodCancelled && f.b.cancelled != nil {
			f.b.cancelled(x, m)
			return
		}
		x.empty(http.StatusAccepted)
	default:
		if f.b.reply != nil {
			f.b.reply(m)
		}
		x.empty(http.StatusAccepted)
	}
}

// request answers a single request the era admitted through the case's
// hooks, or as JSON.
func (f *Fake) request(x *exchange, m *jsonrpc.Message) {
	switch {
	case m.Method == methodInitialize && f.b.initialize != nil:
		if !f.b.initialize(x, m) {
			return
		}
	case m.Method == methodToolsCall && f.b.call != nil:
		c, err := f.parseCall(x, m)
		if err != nil {
			x.reply(jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidParams, err.Error()))
			return
		}
		f.b.call(x, c)
		return
	case m.Method == fakeservers.MethodListen && x.adm.Modern && f.b.listen != nil:
		f.b.listen(x, m)
		return
	}
	x.reply(f.answer(x, m))
}

// batch answers every message of a batch with the base handlers.
func (f *Fake) batch(x *exchange) {
	body := []byte{'['}
	for _, m := range x.msgs {
		switch m.Kind() {
		case jsonrpc.KindRequest:
			if len(body) > 1 {
				body = append(body, ',')
			}
			body = append(body, fakeservers.Encode(f.answer(x, m))...)
		case jsonrpc.KindResult, jsonrpc.KindError:
			if f.b.reply != nil {
				f.b.reply(m)
			}
		}
	}
	if len(body) == 1 {
		x.empty(http.StatusAccepted)
		return
	}
	x.jsonBody(http.StatusOK, append(body, ']'))
}

// answer is the base response to request m in the era x admitted it to:
// initialize opens a session; server/discover gets -32601 from a legacy
// fake (so dual-era clients fall back to initialize) and the discover
// result from a modern one (fakeservers.Base).
func (f *Fake) answer(x *exchange, m *jsonrpc.Message) *jsonrpc.Message {
	switch {
	case m.Method == methodInitialize && !x.adm.Modern:
		return f.initialize(x, m)
	case m.Method == methodToolsCall:
		c, err := f.parseCall(x, m)
		if err != nil {
			return jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidParams, err.Error())
		}
		return c.OK()
	}
	return f.offer().Base(m, x.adm)
}

// offer is what the fake offers: the case's tools, their schemas and its
// capabilities.
func (f *Fake) offer() fakeservers.Offer {
	schemas := f.b.schemas
	if f.b.schemasNow != nil {
		schemas = f.b.schemasNow()
	}
	return fakeservers.Offer{Tools: f.b.tools, Schemas: schemas, OutputSchemas: f.b.outputSchemas, Capabilities: f.b.capabilities, Paged: f.b.paged, Alias: f.o.ToolAlias}
}

// Canonical is the offered tool a tools/call of name calls (Options.ToolAlias).
func (f *Fake) Canonical(name string) string { return f.offer().Canonical(name) }

// initialize answers with the proposed version when the fake speaks it
// (2025-11-25 otherwise) and, unless stateless, a fresh session id in the
// Mcp-Session-Id header.
func (f *Fake) initialize(x *exchange, m *jsonrpc.Message) *jsonrpc.Message {
	if !f.b.stateless {
		x.w.Header().Set(mcp.HeaderSessionID, f.newSession().id)
	}
	return fakeservers.InitializeReplyIn(m, f.b.initVersion)
}

// parseCall reads a tools/call request, numbering it in arrival order; its
// result is of the era x admitted it to.
func (f *Fake) parseCall(x *exchange, m *jsonrpc.Message) (fakeservers.ToolCall, error) {
	f.mu.Lock()
	index := f.calls
	f.calls++
	f.mu.Unlock()
	c, err := fakeservers.ParseCall(m, index)
	c.Name = f.Canonical(c.Name)
	c.Modern = x.adm.Modern
	return c, err
}

// get answers a GET on a live session: the case's stream, or 405 (HT-31g).
func (f *Fake) get(x *exchange) {
	if !f.sessionOK(x) {
		return
	}
	if f.b.get != nil {
		f.b.get(x)
		return
	}
	noGetStream(x)
}

// noGetStream answers a GET with 405: the fake offers no GET stream.
func noGetStream(x *exchange) {
	x.w.Header().Set("Allow", "POST, DELETE")
	x.plain(http.StatusMethodNotAllowed, "this server offers no GET stream")
}

// delete ends the session it carries (HT-58); a stateless fake has none to
// end and answers 405.
func (f *Fake) delete(x *exchange) {
	if f.b.stateless {
		x.w.Header().Set("Allow", "POST")
		x.plain(http.StatusMethodNotAllowed, "this server is stateless: there is no session to end")
		return
	}
	if !f.sessionOK(x) {
		return
	}
	f.endSession(x.sess)
	x.empty(http.StatusOK)
}

// eventID hands out the next SSE event id, unique across the fake (HT-43).
func (f *Fake) eventID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events++
	return "ev-" + strconv.Itoa(f.events)
}
