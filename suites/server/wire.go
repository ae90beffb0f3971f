package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Every message a server sends matches the published JSON Schema of the
// negotiated version: JR-01, JR-03, JR-09, JR-11, JR-13, TL-03.

// wireRules are what the MCP schema encodes of the message-shape rules.
var wireRules = []string{"JR-01", "JR-03", "JR-09", "JR-11", "JR-13", "TL-03"}

func wireSchemaCheck(t check.Transport) check.Descriptor {
	return check.Descriptor{
		ID: string(t) + ".server.wire.schema-valid",
		Title: "every message the server sends in a representative conversation (initialize, every page of each declared list, " +
			"a tool call, ping, an unknown method's error; and server/discover, lists and a call in 2026-07-28) validates against " +
			"the published JSON Schema of the negotiated version",
		Requirement: "Every message is a JSON-RPC 2.0 message of the shape the MCP schema of the negotiated protocol version defines: " +
			"a request or notification by its method, a result by the request it answers, an error with an integer code and a string message.",
		Rules:    wireRules,
		Eras:     check.BothEras,
		KilledBy: []mutant.Name{mutant.ToolWithoutInputSchema},
		Waits: []check.Wait{
			{What: "the conversation's tool call, when it is slower than the budget; the call is then cancelled", Setting: check.ToolBudget},
			{What: "late messages, at the end of each conversation", Setting: check.QuietWindow},
		},
	}
}

var _ = stdioServerCheck(wireSchemaCheck(check.Stdio), func(c *run.C) { wireSchemaValid(c, check.Stdio) })

var _ = httpServerCheck(wireSchemaCheck(check.HTTP), func(c *run.C) { wireSchemaValid(c, check.HTTP) })

// wireSchemaValid holds a legacy conversation with the server over t when
// it serves the legacy era, and a 2026-07-28 one on a fresh connection
// when it serves the modern era, and judges every message the server sent
// by the schema of the version each negotiated. The conversations are the
// check's transcript.
func wireSchemaValid(c *run.C, t check.Transport) {
	cfg := c.Options()
	switch {
	case t == check.Stdio && len(cfg.ServerCommand) == 0:
		c.Skip(run.NoServerCommand)
	case t == check.HTTP && cfg.ServerURL == "":
		c.Skip(run.NoServerURL)
	}
	converse := func(talk func(p *peer) string) {
		p := openPeer(c, t)
		p.wire = newWire(c.Log())
		version := talk(p)
		p.wire.judge(c, version, p.transport)
	}
	if e := c.ServerEras(t); e.Legacy || !e.Modern {
		converse(legacyConversation)
	}
	if c.ServerEras(t).Modern {
		converse(modernConversation)
	}
}

// legacyConversation makes the server send a representative set of
// messages after the initialize handshake, and returns the version it
// negotiated.
func legacyConversation(p *peer) string {
	r := p.initialize(v1125, nil)
	p.wire.note("legacy conversation; the server chose protocol version " + r.ProtocolVersion)
	tools := p.walkDeclared(r.Capabilities)
	if f, ok := callable(p.c, tools); ok {
		id := p.id()
		p.message(id, "tools/call", p.callParams(f, nil))
		p.awaitCall(f, id)
	}
	p.request("ping", nil)
	p.offer("mcpconform/no-such-method", map[string]any{})
	p.quiet(p.c.QuietWindow())
	return r.ProtocolVersion
}

// modernConversation is the 2026-07-28 conversation: server/discover, the
// lists its capabilities declare, a tool call and an unknown method.
func modernConversation(p *peer) string {
	p.wire.note("2026-07-28 conversation")
	m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.Result, &r)
	tools := p.walkDeclared(r.Capabilities)
	if f, ok := callable(p.c, tools); ok {
		id := p.id()
		p.message(id, "tools/call", modernParams(mcp.ModernVersion, p.callParams(f, nil)))
		p.awaitCall(f, id)
	}
	p.offer("mcpconform/no-such-method", modernParams(mcp.ModernVersion, nil))
	p.quiet(p.c.QuietWindow())
	return mcp.ModernVersion
}

// awaitCall waits for the answer to the conversation's call of f (request
// id) within the run's ToolBudget; past it the call is cancelled, and the
// check says that its answer was not judged.
func (p *peer) awaitCall(f run.Fixture, id jsonrpc.ID) {
	budget := p.c.ToolBudget()
	if p.patience() == 0 { // a complete HTTP reply: nothing more can come
		p.waitReady(responseTo(id))
		return
	}
	if p.wait(responseTo(id), budget) != nil {
		return
	}
	p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform: no answer within the tool budget"})
	p.c.Note("the call of %s got no answer within the tool budget of %s (%s) and was cancelled: its result was not judged", f.Tool, budget, p.transport)
}

// offer sends a request whose answer, if the server sends one, is a
// message to judge; a server may also refuse it at the transport (an HTTP
// error without a JSON-RPC body), which sends no message at all.
func (p *peer) offer(method string, params map[string]any) {
	id := p.id()
	p.message(id, method, params)
	p.wait(responseTo(id), p.patience())
}

// walkDeclared walks every page of each list whose capability caps
// declares (an error ends a list: it is a message to judge too) and
// returns the tools listed.
func (p *peer) walkDeclared(caps map[string]json.RawMessage) []json.RawMessage {
	var tools []json.RawMessage
	for _, l := range paginatedLists {
		if caps[l.capability] == nil {
			continue
		}
		items := p.c.Pages(l.method, l.field, func(cursor string) json.RawMessage {
			var m *jsonrpc.Message
			if p.modern != "" {
				var extra map[string]any
				if cursor != "" {
					extra = map[string]any{"cursor": cursor}
				}
				m = p.modernRequest(l.method, p.modern, modernParams(p.modern, extra))
			} else {
				m = p.request(l.method, run.CursorParams(cursor))
			}
			return m.Result // nil for an error: the walk ends
		})
		if l.method == "tools/list" {
			tools = items
		}
	}
	return tools
}

// callable is the tool the conversation calls: the first listed that the
// fixtures file maps, with its arguments, else the first whose inputSchema
// requires no argument, with {}; only one the run's tool policy lets checks
// call (the check notes the tools it left alone when it calls none), and
// never a slow tool (run.SlowTools), which answers only when cancelled.
func callable(c *run.C, tools []json.RawMessage) (run.Fixture, bool) {
	fixtures := c.Options().Fixtures
	slow := run.SlowTools(fixtures)
	var listed []run.ListedTool
	for _, raw := range tools {
		var t run.ListedTool
		if json.Unmarshal(raw, &t) == nil && t.Name != "" && !slices.Contains(slow, t.Name) {
			listed = append(listed, t)
		}
	}
	// Every listed tool is judged once: the reports list each the run
	// leaves alone, not only those looked at before one could be called.
	var left []toolpolicy.LeftAlone
	allowed := map[string]bool{}
	for _, t := range listed {
		ok, why := c.MayCall(t.Tool)
		allowed[t.Name] = ok
		if !ok {
			left = append(left, toolpolicy.LeftAlone{Name: t.Name, Why: why})
		}
	}
	roles := slices.Sorted(maps.Keys(fixtures))
	for _, t := range listed {
		for _, role := range roles {
			if fixtures[role].Tool == t.Name && allowed[t.Name] {
				return fixtures[role], true
			}
		}
	}
	for _, t := range listed {
		if len(t.InputSchema.Required) == 0 && allowed[t.Name] {
			return run.Fixture{Tool: t.Name}, true
		}
	}
	if len(left) > 0 {
		c.Note("the conversation calls no tool, so no tools/call result was judged: %s", toolpolicy.Explain(left))
	}
	return run.Fixture{}, false
}

// wire records one conversation: what the peer sent, as sent, and what the
// server sent, as the harness decoded it (a line that does not decode is
// no message; server.stdio.stdout-only-jsonrpc judges those), with the
// method of the request each response answers.
type wire struct {
	log     *transcript.Log   // the check's transcript, which the connection records into
	methods map[string]string // request id (JSON text) → method, of the peer's requests
	got     []run.WireMessage
}

func newWire(log *transcript.Log) *wire { return &wire{log: log, methods: map[string]string{}} }

// sent records a message the peer sends; nil records nothing.
func (w *wire) sent(raw []byte) {
	if w == nil {
		return
	}
	if m, err := jsonrpc.Decode(raw); err == nil && m.Kind() == jsonrpc.KindRequest {
		w.methods[m.ID.Key()] = m.Method
	}
}

// received records a message of the server; nil records nothing.
func (w *wire) received(m *jsonrpc.Message) {
	if w == nil {
		return
	}
	raw, err := jsonrpc.Encode(m)
	if err != nil {
		w.note(fmt.Sprintf("a server message the harness cannot encode: %v", err))
		return
	}
	var answers string
	if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
		answers = w.methods[m.ID.Key()]
	}
	w.got = append(w.got, run.WireMessage{Raw: raw, Answers: answers})
}

func (w *wire) note(s string) { w.log.Notef("%s", s) }

// judge fails the check unless every message the server sent validates
// against the schema of version; a version without a schema is judged by
// the one the peer proposed, whose InitializeResult then flags it.
func (w *wire) judge(c *run.C, version, transport string) {
	c.RequireSchemaValid("server", transport, w.got, version, v1125)
}
