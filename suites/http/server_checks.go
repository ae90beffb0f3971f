package http

import (
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Server-role checks of the streamable HTTP transport: HT-03 … HT-72.

// linger is how long a check keeps reading an SSE stream after the
// response arrived, to see whether the server ends it.
func linger(c *run.C) time.Duration { return c.Options().Prompt }

// settle is how long a check keeps reading the GET stream after the
// responses of its POSTs arrived: a quiet window. A message the server puts
// on the GET stream instead of (or besides) a POST stream goes out before
// that POST's response, on a connection already open and being read, so
// only its delivery is waited for.
var settle = check.Wait{What: "messages misrouted to the GET stream, after the last response", Setting: check.QuietWindow}

// settleAfter waits out the settle window after the last message the
// replies carried (now, when they carried none): a message misrouted to the
// GET stream goes out with the one it shadows, so the window may pass while
// a slow call is still awaited.
func settleAfter(c *run.C, replies []*reply) {
	last := time.Now()
	if n := latest(replies); !n.IsZero() {
		last = n
	}
	time.Sleep(time.Until(last.Add(c.QuietWindow())))
}

// latest is when the last of the replies' messages was read; zero for none.
func latest(replies []*reply) time.Time {
	var t time.Time
	for _, r := range replies {
		if r.Last.After(t) {
			t = r.Last
		}
	}
	return t
}

// everyToolBudget is the wait of the checks that call every tool: each call
// of a tool slower than the budget.
var everyToolBudget = check.Wait{What: "each tools/call still unanswered when the budget passes; the call is then cancelled", Setting: check.ToolBudget}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.notification.accepted-202",
	Title:       "a POSTed notification gets 202 Accepted with an empty body",
	Requirement: "A body of only notifications or responses that the server accepts gets 202 Accepted with no body.",
	Rules:       []string{"HT-15", "JR-14"},
	KilledBy:    []mutant.Name{mutant.NotificationGets200},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	r := p.post(p.message(jsonrpc.ID{}, "notifications/progress", map[string]any{"progressToken": "none", "progress": 1}), s.headers(), jsonrpc.ID{}, 0)
	c.Require(r.Status == nethttp.StatusAccepted && len(r.Body) == 0 && len(r.Events) == 0,
		"202 Accepted with an empty body", "%s, body of %d bytes", r.describe(), len(r.Body))
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.invalid-body.http-error",
	Title:       "a body that is not JSON-RPC gets an HTTP error status",
	Requirement: "A body the server refuses is answered with an HTTP error status (4xx), optionally with a JSON-RPC error without id.",
	Rules:       []string{"HT-16", "JR-20"},
	KilledBy:    []mutant.Name{mutant.RefusedBodyGets200},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	r := p.post([]byte(`{"jsonrpc":"2.0","id":`), s.headers(), jsonrpc.ID{}, 0)
	c.Require(r.Status >= 400 && r.Status < 500, "a 4xx status", "%s", r.describe())
	for _, m := range r.Messages {
		c.Require(m.Error != nil && m.ID.IsZero(), "any JSON-RPC body is an error without id", "body message of kind %s with id %s", m.Kind(), m.ID)
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.request.content-type",
	Title:       "a request is answered with application/json or text/event-stream",
	Requirement: "A body containing a request is answered with Content-Type application/json (one JSON object) or text/event-stream.",
	Rules:       []string{"HT-17"},
	KilledBy:    []mutant.Name{mutant.WrongContentType},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	r, id := p.call(s, "tools/list", nil, 0)
	ct := r.ContentType()
	c.Require(r.Status == nethttp.StatusOK && (ct == mcp.ContentTypeJSON || ct == mcp.ContentTypeSSE),
		"200 with Content-Type application/json or text/event-stream", "%s", r.describe())
	c.Require(r.response(id) != nil, "the reply carries the response to the request", "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.sse.ends-after-response",
	Title:       "an SSE reply ends once the response has been sent",
	Requirement: "Once the response to the POSTed request has been sent on its SSE stream, the server ends the stream.",
	Rules:       []string{"HT-25", "HT-20"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.StreamStaysOpen},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	r, id := p.call(s, "tools/list", nil, linger(c))
	if r.ContentType() != mcp.ContentTypeSSE {
		c.Require(r.response(id) != nil, "a JSON reply with the response", "%s", r.describe())
		return
	}
	c.Require(r.response(id) != nil && r.Ended, fmt.Sprintf("the stream ends within %s of the response", linger(c)),
		"%s; stream ended: %v", r.describe(), r.Ended)
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.get.sse-or-405",
	Title:       "GET on the endpoint opens an SSE stream or is refused with 405",
	Requirement: "A GET gets either Content-Type text/event-stream or 405 Method Not Allowed.",
	Rules:       []string{"HT-31g", "HT-01"},
	KilledBy:    []mutant.Name{mutant.GetReturnsJSON},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	req, _ := nethttp.NewRequestWithContext(c.Ctx, nethttp.MethodGet, p.url, nil)
	req.Header.Set("Accept", mcp.ContentTypeSSE)
	for k, v := range s.headers() {
		req.Header.Set(k, v)
	}
	resp, err := (&nethttp.Client{Transport: p.rt, Timeout: c.Options().Patience}).Do(req)
	c.Require(err == nil, "the server answers GET", "%v", transcript.RedactError(err))
	resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	c.Require(resp.StatusCode == nethttp.StatusMethodNotAllowed || (resp.StatusCode == nethttp.StatusOK && isEventStream(ct)),
		"200 text/event-stream or 405", "status %d, Content-Type %q", resp.StatusCode, ct)
})

// callEveryTool lists the tools and calls each one that the run's tool
// policy lets checks call and that has no required arguments (and the
// fixtures' slow tool with its arguments), with a progress token and the
// log level at debug, returning the replies. It is how a check makes a
// server it does not know send messages: when the policy left every tool
// alone, the check is UNIMPLEMENTED. A reply whose stream the server closed
// before the response is resumed (HT-29a, HT-45), so what the server sends
// after the close is seen too. A call is never waited for past the run's
// ToolBudget, and a slow tool (run.SlowTools) not past its first event:
// callTool cancels it, and the check says so (Note). A tool the run's tool
// census found unanswered within the budget (run.CensusSlow) is not
// called again; one it has not seen answered yet is called after the
// others, once the census is taken.
func callEveryTool(c *run.C, p *probe, s session) []*reply {
	p.call(s, "logging/setLevel", map[string]any{"level": "debug"}, 0) // a server without logging refuses; that is fine
	raws := c.Pages("tools/list", "tools", func(cursor string) json.RawMessage {
		r, id := p.call(s, "tools/list", run.CursorParams(cursor), 0)
		resp := r.response(id)
		c.Require(resp != nil && resp.Error == nil, "tools/list succeeds", "%s", r.describe())
		return resp.Result
	})
	fixtures := c.Options().Fixtures
	slow := run.SlowTools(fixtures)
	var out []*reply
	var cut, opened, learnt []string
	var left []toolpolicy.LeftAlone
	call := func(name string, args map[string]any, isSlow bool) {
		c.Calls(name)
		r := p.callTool(s, name, args, isSlow)
		switch {
		case r.Cancelled && isSlow:
			opened = append(opened, name)
		case r.Cancelled:
			cut = append(cut, name)
		}
		out = append(out, r)
	}
	var pending []string
	for _, raw := range raws {
		var t run.ListedTool
		_ = json.Unmarshal(raw, &t)
		if ok, why := c.MayCall(t.Tool); !ok {
			left = append(left, toolpolicy.LeftAlone{Name: t.Name, Why: why})
			continue
		}
		args := map[string]any{}
		isSlow := slices.Contains(slow, t.Name)
		if f, ok := fixtures["slow"]; ok && isSlow && f.Arguments != nil {
			args = f.Arguments
		} else if len(t.InputSchema.Required) > 0 {
			continue
		}
		if !isSlow {
			switch found, waiting := c.CensusSoFar(check.HTTP, t.Name); {
			case found:
				learnt = append(learnt, t.Name)
				continue
			case waiting:
				pending = append(pending, t.Name)
				continue
			}
		}
		call(t.Name, args, isSlow)
	}
	for _, name := range pending {
		if c.CensusSlow(check.HTTP, name) {
			learnt = append(learnt, name)
			continue
		}
		call(name, map[string]any{}, false)
	}
	switch {
	case len(out) == 0 && len(left) > 0:
		c.Unimplemented("the check calls the server's tools to make it send messages, and none may be called: " + toolpolicy.Explain(left))
	case len(out) == 0 && len(learnt) > 0:
		c.Unimplemented(fmt.Sprintf("the check calls the server's tools to make it send messages, and the run's tool census found every one it may call unanswered within the tool budget of %s (%s): --tool-budget waits longer",
			c.ToolBudget(), strings.Join(learnt, ", ")))
	case len(left) > 0:
		c.Note("%d tools were not called: %s", len(left), toolpolicy.Explain(left))
	}
	if len(cut) > 0 {
		c.Note("%d of %d tool calls got no answer within the tool budget of %s and were cancelled (%s): what their streams would have carried later was not observed; --tool-budget waits longer, the fixtures file's slow role cancels a slow tool at once",
			len(cut), len(out), c.ToolBudget(), strings.Join(cut, ", "))
	}
	if len(opened) > 0 {
		c.Note("the slow tool %s was cancelled once its call opened: its stream was read to its first event only", strings.Join(opened, ", "))
	}
	if len(learnt) > 0 {
		c.Note("the run's tool census found %s unanswered within the tool budget of %s: not called again, what its stream would carry was not observed; --tool-budget waits longer", strings.Join(learnt, ", "), c.ToolBudget())
	}
	return out
}

var _ = serverCheck(check.Descriptor{
	ID:    "http.server.get.no-responses",
	Title: "responses to POSTed requests never travel the GET stream; progress goes on its own request's stream",
	Requirement: "The GET stream carries requests and notifications only, never JSON-RPC responses (except when resuming a POST's stream); " +
		"what the server sends on a POST's stream relates to that request, and what it sends on the GET stream to no request in flight.",
	Rules:       []string{"HT-33g", "HT-21", "HT-32g"},
	KilledBy:    []mutant.Name{mutant.ResponseOnGetStream, mutant.ProgressTokenForeign, mutant.NotificationsOnGetStream},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget, settle},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	g := p.openGET(s, "")
	replies := callEveryTool(c, p, s)
	var got []*jsonrpc.Message
	if g.Status == nethttp.StatusOK {
		settleAfter(c, replies) // let anything misrouted arrive on the GET stream
		got = g.Messages()
	}
	for _, m := range got {
		c.Require(m.Kind() != jsonrpc.KindResult && m.Kind() != jsonrpc.KindError,
			"no response on the GET stream", "a %s with id %s arrived on the GET stream (%d tool calls made)", m.Kind(), m.ID, len(replies))
	}
	tokens := map[string]bool{}
	for _, r := range replies {
		tokens[r.Token] = true
		for _, m := range r.Messages {
			if t, ok := progressToken(m); ok {
				c.RequireRuleAt("HT-21", check.SHOULD, t == r.Token, "progress on a tool call's stream names that call's token "+r.Token,
					"it names %q: %s", t, transcript.Clip(string(m.Params), transcript.ExcerptBytes))
			}
		}
	}
	for _, m := range got {
		t, ok := progressToken(m)
		c.RequireRuleAt("HT-32g", check.SHOULD, !ok || !tokens[t], "no progress of a POSTed request on the GET stream",
			"progress for the tool call with token %q arrived on the GET stream: %s", t, transcript.Clip(string(m.Params), transcript.ExcerptBytes))
	}
})

// progressToken is the token of a notifications/progress (as JSON text
// when it is a number), and whether m is one.
func progressToken(m *jsonrpc.Message) (string, bool) {
	if m.Method != "notifications/progress" {
		return "", false
	}
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	_ = json.Unmarshal(m.Params, &p)
	var text string
	if json.Unmarshal(p.Token, &text) != nil {
		text = string(p.Token)
	}
	return text, true
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.streams.no-duplicates",
	Title:       "each server message goes on exactly one stream",
	Requirement: "Each server message is sent on exactly one of the session's streams, never duplicated across streams.",
	Rules:       []string{"HT-41"},
	KilledBy:    []mutant.Name{mutant.DuplicateAcrossStreams},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget, settle},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	g := p.openGET(s, "")
	replies := callEveryTool(c, p, s)
	settleAfter(c, replies)
	seen := map[string]bool{}
	for _, r := range replies {
		for _, ev := range r.Events {
			if strings.TrimSpace(ev.Data) != "" {
				seen[ev.Data] = true
			}
		}
	}
	for _, ev := range g.Events() {
		c.Require(!seen[ev.Data] || strings.TrimSpace(ev.Data) == "", "no message on both a POST stream and the GET stream",
			"a message of %d bytes arrived on both", len(ev.Data))
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.event-ids.unique",
	Title:       "SSE event ids are unique across all streams of a session",
	Requirement: "Event ids, where given, are unique across all streams of the session.",
	Rules:       []string{"HT-43", "HT-42"},
	KilledBy:    []mutant.Name{mutant.DuplicateEventIDs},
	TakesCensus: true,
	Waits:       []check.Wait{everyToolBudget, settle},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	g := p.openGET(s, "")
	more, _ := p.call(s, "tools/list", nil, 0)
	replies := append([]*reply{more}, callEveryTool(c, p, s)...)
	settleAfter(c, replies)
	seen := map[string]string{}
	note := func(stream string, id string) {
		if id == "" {
			return
		}
		prev, dup := seen[id]
		c.Require(!dup, "every event id once", "event id %q appears on %s and on %s", id, prev, stream)
		seen[id] = stream
	}
	for i, r := range replies {
		for _, ev := range r.Events {
			note(fmt.Sprintf("POST stream %d", i+1), ev.ID)
		}
	}
	for _, ev := range g.Events() {
		note("the GET stream", ev.ID)
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.session.id-visible-ascii",
	Title:       "the session id uses visible ASCII only",
	Requirement: "A session id, when the server issues one, contains only visible ASCII characters (0x21 to 0x7E).",
	Rules:       []string{"HT-52", "HT-50", "LM-06"},
	KilledBy:    []mutant.Name{mutant.SessionIDNotVisible},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	for i := 0; i < len(s.ID); i++ {
		c.Require(s.ID[i] >= 0x21 && s.ID[i] <= 0x7E, "visible ASCII only", "byte %d of the session id is 0x%02x", i, s.ID[i])
	}
})

// sessionful opens a session and skips the check for a stateless server.
func sessionful(c *run.C, p *probe) session {
	s := p.initialize(latestLegacy)
	if s.ID == "" {
		c.Unimplemented("the server issues no session id (stateless): session rules do not apply")
	}
	return s
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.session.missing-id-400",
	Title:       "a request without the session id gets 400",
	Requirement: "A server that requires sessions answers a non-initialize request lacking Mcp-Session-Id with 400 Bad Request.",
	Rules:       []string{"HT-55"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.MissingSessionAccepted},
}, func(c *run.C) {
	p := newProbe(c)
	s := sessionful(c, p)
	h := s.headers()
	delete(h, mcp.HeaderSessionID)
	id := p.id()
	r := p.post(p.message(id, "tools/list", nil), h, id, 0)
	c.Require(r.Status == nethttp.StatusBadRequest, "400 Bad Request", "%s", r.describe())
})

// The spec asks for 404 only for a session the server ended (HT-56), which
// http.server.session.delete-then-404 judges; an id it never issued is
// refused the same way under the hardened profile.
var _ = serverCheck(check.Descriptor{
	ID:          "http.server.session.unknown-404",
	Title:       "a request with a session id the server never issued gets 404, as an ended session's does",
	Requirement: "A request bearing a session id the server never issued gets 404 Not Found, as one bearing the id of a session it ended must (HT-56, which names only ended sessions: a hardened rule).",
	Rules:       []string{"HT-56"},
	Source:      check.Hardened,
	KilledBy:    []mutant.Name{mutant.UnknownSessionAccepted},
}, func(c *run.C) {
	p := newProbe(c)
	s := sessionful(c, p)
	s.ID = "mcpconform-never-issued-" + s.ID
	r, _ := p.call(s, "tools/list", nil, 0)
	c.Require(r.Status == nethttp.StatusNotFound, "404 Not Found for a session id the server never issued, as for one it ended", "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.session.delete-then-404",
	Title:       "after DELETE ends a session, its id gets 404",
	Requirement: "DELETE with the session id ends the session (or is refused with 405); afterwards every request bearing that id gets 404.",
	Rules:       []string{"HT-56", "HT-58"},
	KilledBy:    []mutant.Name{mutant.DeleteKeepsSession},
}, func(c *run.C) {
	p := newProbe(c)
	s := sessionful(c, p)
	req, _ := nethttp.NewRequestWithContext(c.Ctx, nethttp.MethodDelete, p.url, nil)
	for k, v := range s.headers() {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	c.Require(err == nil, "the server answers DELETE", "%v", transcript.RedactError(err))
	resp.Body.Close()
	if resp.StatusCode == nethttp.StatusMethodNotAllowed {
		c.Unimplemented("the server answered DELETE with 405: it does not let clients end sessions (HT-58 permits it), so no session could be ended and its 404 was not observed")
	}
	c.Require(resp.StatusCode/100 == 2, "DELETE gets 2xx or 405", "status %d", resp.StatusCode)
	r, _ := p.call(s, "tools/list", nil, 0)
	c.Require(r.Status == nethttp.StatusNotFound, "404 for the ended session", "%s", r.describe())
})

// foreignOrigin and reboundHost are what the Origin and Host checks send:
// names no server under test can own.
const (
	foreignOrigin = "http://mcpconform-attacker.example"
	reboundHost   = "mcpconform-rebound.example"
)

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.origin.forbidden-403",
	Title:       "a request with a foreign Origin gets 403, before and inside a session",
	Requirement: "The server validates Origin on every connection; a present but unacceptable Origin gets 403 Forbidden.",
	Rules:       []string{"HT-03", "HT-04"},
	KilledBy:    []mutant.Name{mutant.NoOriginCheck},
}, func(c *run.C) {
	p := newProbe(c)
	wantForbidden(c, p, "Origin "+foreignOrigin, func(req *nethttp.Request) { req.Header.Set("Origin", foreignOrigin) })
})

// The spec's defence against DNS rebinding is the Origin check (HT-03) and a
// loopback address (HT-05); no sentence of it asks for a Host check, so a
// server without one misses a hardened rule only.
var _ = serverCheck(check.Descriptor{
	ID:          "http.server.host.rebinding-403",
	Title:       "a request whose Host is a foreign name (DNS rebinding) gets 403, before and inside a session",
	Requirement: "A local server defends against DNS rebinding by its Host header too, beyond the Origin check HT-03 asks for: a request addressed to a foreign host name is refused with 403 (a hardened rule).",
	Rules:       []string{"HT-03", "HT-05"},
	Source:      check.Hardened,
	KilledBy:    []mutant.Name{mutant.NoHostCheck},
}, func(c *run.C) {
	p := newProbe(c)
	u, err := url.Parse(p.url)
	c.Require(err == nil, "a parseable server URL", "%v", err)
	if !isLoopbackHost(u.Hostname()) {
		c.Unimplemented("the server is not on a loopback address; DNS rebinding protection applies to local servers")
	}
	host := reboundHost + ":" + u.Port()
	wantForbidden(c, p, "Host "+host, func(req *nethttp.Request) { req.Host = host })
})

// wantForbidden requires 403 for requests that foreign (what) makes
// foreign: an initialize, and a ping inside a session opened without it,
// carrying the session id and protocol version, so that a refusal for
// another reason (no session) is not taken for the check's. A body of a
// 403 may be a JSON-RPC error without id (HT-04), never a result.
func wantForbidden(c *run.C, p *probe, what string, foreign func(*nethttp.Request)) {
	r, _ := p.sendInitialize(latestLegacy, foreign)
	requireForbidden(c, r, "initialize with "+what)
	s := p.initialize(latestLegacy)
	id := p.id()
	req := p.request(p.message(id, "ping", nil), s.headers())
	foreign(req)
	r = p.do(req, id, 0)
	requireForbidden(c, r, "a ping inside an initialized session with "+what)
}

func requireForbidden(c *run.C, r *reply, request string) {
	c.Require(r.Status == nethttp.StatusForbidden, "403 Forbidden for "+request+" (the body, if any, a JSON-RPC error without id)", "%s", r.describe())
	for _, m := range r.Messages {
		c.Require(m.Kind() == jsonrpc.KindError && m.ID.IsZero(), "403 for "+request+" with no body or a JSON-RPC error without id", "%s", r.describe())
	}
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.protocol-version.invalid-400",
	Title:       "a request with an unsupported MCP-Protocol-Version gets 400",
	Requirement: "After initialization, a malformed or unsupported MCP-Protocol-Version header gets 400 Bad Request.",
	Rules:       []string{"HT-72", "LC-14"},
	KilledBy:    []mutant.Name{mutant.NoVersionCheck},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	if s.Version == oldest {
		c.Unimplemented("the server negotiated 2025-03-26, which has no MCP-Protocol-Version header")
	}
	for _, bad := range []string{"1999-01-01", "not-a-version"} {
		h := s.headers()
		h[mcp.HeaderProtocolVersion] = bad
		id := p.id()
		r := p.post(p.message(id, "tools/list", nil), h, id, 0)
		c.Require(r.Status == nethttp.StatusBadRequest, fmt.Sprintf("400 for MCP-Protocol-Version %q", bad), "%s", r.describe())
	}
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.batch.rejected",
	Title:       "a JSON-RPC batch is refused from 2025-06-18 on",
	Requirement: "From 2025-06-18 a POST body holds exactly one message; a batch array is refused (an HTTP error, or a JSON-RPC error), never executed.",
	Rules:       []string{"JR-21", "HT-16", "JR-37"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.AcceptBatch},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	if s.Version == oldest {
		c.Unimplemented("the server negotiated 2025-03-26, where batches are allowed")
	}
	a, b := p.id(), p.id()
	body := "[" + string(p.message(a, "ping", nil)) + "," + string(p.message(b, "ping", nil)) + "]"
	// An SSE reply is read until the second ping's response, then until
	// the stream ends (at most linger), so what a server that executes the
	// batch sends is all seen.
	r := p.post([]byte(body), s.headers(), b, linger(c))
	for _, m := range r.Messages {
		c.Require(m.Kind() != jsonrpc.KindResult, "no result for a batched request", "the server answered the batch's request %s with a result: %s", m.ID, r.describe())
	}
	c.Require(r.Status >= 400 || len(r.Messages) > 0, "an HTTP error or a JSON-RPC error", "%s", r.describe())
})

var _ = serverCheck(check.Descriptor{
	ID:          "http.server.resume.one-stream-only",
	Title:       "resuming a stream with Last-Event-ID replays that stream's events only",
	Requirement: "On a GET with Last-Event-ID the server may replay the messages after that id for the disconnected stream only; it never replays messages of other streams.",
	Rules:       []string{"HT-46", "HT-45"},
	KilledBy:    []mutant.Name{mutant.ReplayOtherStreams},
	Waits:       []check.Wait{{What: "a replay of another stream's events, after the GET with Last-Event-ID", Setting: check.QuietWindow}},
}, func(c *run.C) {
	p := newProbe(c)
	s := p.initialize(latestLegacy)
	first, _ := p.call(s, "tools/list", nil, 0)
	other, _ := p.call(s, "tools/list", nil, 0)
	if first.ContentType() != mcp.ContentTypeSSE || len(first.Events) == 0 || first.Events[0].ID == "" {
		c.Unimplemented("the server answers without SSE event ids: there is no stream to resume")
	}
	foreign := map[string]bool{}
	for _, ev := range other.Events {
		if ev.ID != "" {
			foreign[ev.ID] = true
		}
	}
	g := p.openGET(s, first.Events[0].ID)
	time.Sleep(c.QuietWindow()) // a replay goes out as the GET is answered

	for _, ev := range g.Events() {
		c.Require(!foreign[ev.ID], "only the resumed stream's events", "the replay carried event id %q of another stream", ev.ID)
	}
})
