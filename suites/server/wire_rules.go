package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/rules"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What a server's messages carry beyond their schema, judged over a whole
// conversation in each version the server negotiates: the bytes (JR-02),
// its own requests' ids (JR-04, JR-05), responses (JR-08), _meta keys
// (JR-42 … JR-45, JR-48, JR-50) and extension identifiers (LC-50), error
// codes and messages (JR-12, JR-26, JR-28, JR-29, JR-31), what it
// sends before the handshake ends (LC-02, LC-07), the requests it cancels
// (CN-01, CN-03) and, in 2026-07-28 over stdio, that it sends no request (ST-12).

// conventionLevels are the rules server.wire.conventions judges, each at
// the level of the part of it a server's messages show: JR-28's SHOULD NOT
// for an implementation's codes, JR-26's MUST for what -32042 carries.
var conventionLevels = map[string]check.Level{
	"JR-02": check.MUST, "JR-04": check.MUST, "JR-05": check.MUST, "JR-08": check.MUST,
	"JR-42": check.MUST, "JR-43": check.MUST, "JR-44": check.MUST, "JR-45": check.MUST, "JR-50": check.MUST,
	"LC-50": check.MUST, "JR-26": check.MUST, "JR-29": check.MUST, "LC-02": check.MUST, "CN-01": check.MUST, "CN-03": check.MUST, "ST-12": check.MUST,
	"JR-12": check.SHOULD, "JR-28": check.SHOULD, "JR-31": check.SHOULD, "JR-48": check.SHOULD, "LC-07": check.SHOULD,
}

var _ = serverCheck(check.Descriptor{
	ID: "server.wire.conventions",
	Title: "every message the server sends in a conversation in each version it negotiates (initialize with a ping before notifications/initialized, " +
		"every page of each declared list, a tool call, the tools that ask the client, an unknown method; in 2026-07-28 server/discover, " +
		"the lists, a call, an unknown method and tool) keeps the rules its schema does not encode",
	Requirement: "Messages are UTF-8; the server's requests have ids that are never null nor reused in the session; a response has exactly one of " +
		"result and error; _meta keys (and extension identifiers, which need a prefix) have a valid prefix and name, use no prefix reserved for MCP " +
		"but the keys MCP defines, carry W3C traceparent/tracestate/baggage, and 2026-07-28 results name the server in _meta; error codes of 2026-07-28 " +
		"stay out of the spec's and the legacy ranges and application codes out of -32768…-32000; -32042 lists its URL elicitations; an error message " +
		"is one sentence; nothing but ping and log messages precedes the initialize result, and no request but ping precedes notifications/initialized; " +
		"notifications/cancelled names a request the server sent earlier, not a task-augmented one; a 2026-07-28 server on stdio sends no request.",
	Rules: []string{"JR-42", "JR-43", "JR-44", "JR-45", "JR-50", "LC-50", "JR-29", "JR-26", "JR-05", "JR-02", "JR-04", "JR-08", "LC-02", "CN-01", "CN-03", "ST-12",
		"JR-12", "JR-28", "JR-31", "JR-48", "LC-07"},
	Eras:   check.BothEras,
	Serial: true, // the client capabilities the conversation declares are session state
	KilledBy: []mutant.Name{mutant.MetaPrefixInvalid, mutant.MetaNameInvalid, mutant.MetaPrefixReserved0618, mutant.MetaPrefixReserved,
		mutant.ResultTraceparentInvalid, mutant.ServerInfoMetaMissing, mutant.ExtensionUnprefixed, mutant.ErrorCodeSpecRange, mutant.ErrorCodeLegacyRange,
		mutant.ErrorCodeReservedRange, mutant.ErrorMessageMultiline, mutant.URLElicitationMisused, mutant.ServerRequestIDReused,
		mutant.NotifiesBeforeInitReply, mutant.RequestsBeforeInitDone, mutant.CancelsClientRequest, mutant.CancelWithoutRequestID, mutant.ModernStdioRequest},
	Waits: []check.Wait{{What: "each tool call of the conversations, when it is slower than the budget; the call is then cancelled", Setting: check.ToolBudget}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		var found []violation
		for _, cv := range conventionConversations(c, p) {
			found = append(found, cv.violations()...)
		}
		judgeViolations(c, p.transport, found)
	})
})

// conversation is what the server sent in one conversation: the messages
// the harness decoded, the frames as they crossed the wire, and in the
// legacy era those that came before the initialize result and between it
// and the answer to the ping sent before notifications/initialized.
type conversation struct {
	version     string
	transport   check.Transport
	msgs        []run.WireMessage
	frames      []string
	beforeInit  []run.WireMessage
	beforeReady []run.WireMessage
}

// conventionConversations holds a legacy conversation proposing each
// legacy version when the server serves the legacy era, and a 2026-07-28
// one when it serves the modern era, each on a fresh connection (p first).
func conventionConversations(c *run.C, p *peer) []conversation {
	t := check.Transport(p.transport)
	fresh := func() *peer {
		if q := p; q != nil {
			p = nil
			return q
		}
		return openPeer(c, t)
	}
	var out []conversation
	if e := c.ServerEras(t); e.Legacy || !e.Modern {
		for _, v := range legacyVersions {
			out = append(out, recorded(c, fresh(), func(q *peer, cv *conversation) { legacyConventions(q, v, cv) }))
		}
	}
	if c.ServerEras(t).Modern {
		out = append(out, recorded(c, fresh(), modernConventions))
	}
	return out
}

// recorded runs talk on q, recording what the server sent.
func recorded(c *run.C, q *peer, talk func(q *peer, cv *conversation)) conversation {
	from := len(c.Log().Entries())
	q.wire = newWire(c.Log())
	cv := conversation{transport: check.Transport(q.transport)}
	talk(q, &cv)
	cv.msgs = q.wire.got
	for _, e := range c.Log().Entries()[min(from, len(c.Log().Entries())):] {
		if e.Dir == transcript.ServerToClient {
			cv.frames = append(cv.frames, e.Line)
		}
	}
	return cv
}

// askingCaps are the client capabilities the conversation declares, so
// that a server may ask the client what its tools need.
var askingCaps = map[string]any{"sampling": map[string]any{}, "roots": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}

// legacyConventions is the legacy conversation proposing version.
func legacyConventions(q *peer, version string, cv *conversation) {
	m := q.request("initialize", initializeParams(version, askingCaps))
	q.c.Require(m.Error == nil, "initialize succeeds ("+q.transport+")", "%s", answered(m))
	cv.beforeInit = slices.Clone(q.wire.got[:len(q.wire.got)-1])
	var r initResult
	_ = json.Unmarshal(m.Result, &r)
	cv.version = r.ProtocolVersion
	if h, ok := q.conn.(*httpConn); ok {
		h.version = r.ProtocolVersion
	}
	mark := len(q.wire.got)
	q.request("ping", nil)
	cv.beforeReady = slices.Clone(q.wire.got[mark : len(q.wire.got)-1])
	q.message(jsonrpc.ID{}, "notifications/initialized", nil)
	q.converse(q.walkDeclared(r.Capabilities), nil)
	q.offer("mcpconform/no-such-method", map[string]any{})
}

// modernConventions is the 2026-07-28 conversation.
func modernConventions(q *peer, cv *conversation) {
	cv.version = mcp.ModernVersion
	m := q.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.Result, &r)
	q.converse(q.walkDeclared(r.Capabilities), func(params map[string]any) map[string]any { return modernParams(mcp.ModernVersion, params) })
	q.offer("mcpconform/no-such-method", modernParams(mcp.ModernVersion, nil))
	if r.Capabilities["tools"] != nil {
		q.offer("tools/call", modernParams(mcp.ModernVersion, map[string]any{"name": "mcpconform-no-such-tool", "arguments": map[string]any{}}))
	}
}

// converse calls a tool of tools, then twice each tool that asks the client
// (sampling, elicitation, roots), refusing what it asks; wrap makes the
// params of a modern request (nil: legacy).
func (q *peer) converse(tools []json.RawMessage, wrap func(map[string]any) map[string]any) {
	if wrap == nil {
		wrap = func(params map[string]any) map[string]any { return params }
	}
	if f, ok := callable(q.c, tools); ok {
		id := q.id()
		q.message(id, "tools/call", wrap(q.callParams(f, nil)))
		q.awaitCall(f, id)
	}
	if wrap(nil) != nil {
		return // a 2026-07-28 server asks through an InputRequiredResult: the MRTR checks judge it
	}
	refusal := errorAnswer(jsonrpc.CodeMethodNotFound, "mcpconform refuses in this check")
	for _, role := range []string{"sampling", "elicitation", "roots"} {
		found, _, _ := offeredFixtures(q.c, q, role)
		for i := 0; len(found) > 0 && i < 2; i++ {
			if resp, _ := q.callAnswering(found[0], "", refusal, q.c.ToolBudget()); resp == nil {
				q.c.Note("the %s tool %q did not answer within the tool budget of %s (%s): its answer was not judged", role, found[0].Tool, q.c.ToolBudget(), q.transport)
			}
		}
	}
}

// violation is one breach of a rule seen in a conversation.
type violation struct {
	rule, what string
}

// violations are the breaches of the rules that bind the conversation's
// version.
func (cv conversation) violations() []violation {
	var out []violation
	add := func(rule, format string, args ...any) {
		if binds(rule, cv.version) {
			out = append(out, violation{rule, fmt.Sprintf("(%s) ", cv.version) + fmt.Sprintf(format, args...)})
		}
	}
	for _, f := range cv.frames {
		judgeFrame(f, add)
	}
	for _, w := range cv.beforeInit {
		if m, err := jsonrpc.Decode(w.Raw); err == nil && m.Method != "ping" && m.Method != "notifications/message" {
			add("LC-02", "before the initialize result the server sent %s", describe(m))
		}
	}
	for _, w := range cv.beforeReady {
		if m, err := jsonrpc.Decode(w.Raw); err == nil && m.Kind() == jsonrpc.KindRequest && m.Method != "ping" {
			add("LC-07", "before notifications/initialized the server sent %s", describe(m))
		}
	}
	ids := map[string]bool{}
	tasked := map[string]bool{} // the server's task-augmented requests
	for _, w := range cv.msgs {
		m, err := jsonrpc.Decode(w.Raw)
		if err != nil {
			continue
		}
		what := describe(m)
		if w.Answers != "" {
			what = fmt.Sprintf("the %s %s", w.Answers, m.Kind())
		}
		eachMetaKey(w.Raw, func(key string, value json.RawMessage) { judgeMetaKey(key, value, cv.version, what, add) })
		switch m.Kind() {
		case jsonrpc.KindRequest:
			if ids[m.ID.Key()] {
				add("JR-05", "the server sent a second request with id %s (%s)", m.ID, m.Method)
			}
			ids[m.ID.Key()] = true
			tasked[m.ID.Key()] = taskAugmented(m.Params)
			if cv.transport == check.Stdio {
				add("ST-12", "the server wrote %s to stdout", describe(m))
			}
		case jsonrpc.KindNotification:
			if m.Method == "notifications/cancelled" {
				judgeCancel(m.Params, ids, tasked, add)
			}
		case jsonrpc.KindError:
			judgeError(m.Error, what, add)
		case jsonrpc.KindResult:
			judgeResult(m.Result, w.Answers, what, add)
		}
	}
	return out
}

// judgeCancel judges a notifications/cancelled of the server: it names a
// request (CN-03), one the server itself sent earlier, one of ids (CN-01),
// and not a task-augmented one, which tasks/cancel cancels (CN-03).
func judgeCancel(params json.RawMessage, ids, tasked map[string]bool, add func(rule, format string, args ...any)) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	switch {
	case json.Unmarshal(params, &p) != nil:
		// the schema checks judge a notification whose params do not decode
	case p.RequestID.IsZero():
		add("CN-03", "the server sent notifications/cancelled naming no requestId: %s", clip(string(params)))
	case !ids[p.RequestID.Key()]:
		add("CN-01", "the server cancelled the request %s, which it had not sent: %s", p.RequestID, clip(string(params)))
	case tasked[p.RequestID.Key()]:
		add("CN-03", "the server cancelled its task-augmented request %s with notifications/cancelled instead of tasks/cancel", p.RequestID)
	}
}

// taskAugmented reports whether a request's params ask for a task.
func taskAugmented(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && len(p.Task) > 0 && string(p.Task) != "null"
}

// binds reports whether rule belongs to protocol version.
func binds(rule, version string) bool {
	r, ok := rules.Lookup(rule)
	return ok && slices.Contains(r.VersionNames(), version)
}

// judgeFrame judges a frame as it crossed the wire: UTF-8 (JR-02), and
// for each JSON-RPC object in it, a request id that is not null (JR-04)
// and a response with exactly one of result and error (JR-08). The
// harness's decoder drops such objects, so only the frame shows them.
func judgeFrame(f string, add func(rule, format string, args ...any)) {
	if !utf8.ValidString(f) {
		add("JR-02", "a frame that is not UTF-8: %s", clip(strings.ToValidUTF8(f, "\uFFFD")))
	}
	var objects []map[string]json.RawMessage
	if json.Unmarshal([]byte(f), &objects) != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal([]byte(f), &one) != nil {
			return
		}
		objects = append(objects, one)
	}
	for _, o := range objects {
		_, isRequest := o["method"]
		id, hasID := o["id"]
		_, hasResult := o["result"]
		_, hasError := o["error"]
		switch {
		case isRequest && hasID && string(bytes.TrimSpace(id)) == "null":
			add("JR-04", "a request with a null id: %s", clip(f))
		case !isRequest && hasID && hasResult == hasError:
			add("JR-08", "a response with both or neither of result and error: %s", clip(f))
		}
	}
}

// eachMetaKey calls f for every key of every _meta object in the message.
func eachMetaKey(raw []byte, f func(key string, value json.RawMessage)) {
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, inner := range v {
				if meta, ok := inner.(map[string]any); ok && k == "_meta" {
					for key, value := range meta {
						b, _ := json.Marshal(value)
						f(key, b)
					}
				}
				walk(inner)
			}
		case []any:
			for _, inner := range v {
				walk(inner)
			}
		}
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		walk(v)
	}
}

// judgeMetaKey judges one _meta key of what, in a conversation of
// version: its prefix and name (JR-42, JR-43), the prefixes reserved for
// MCP (JR-44, JR-45) and the W3C trace keys (JR-50).
func judgeMetaKey(key string, value json.RawMessage, version, what string, add func(rule, format string, args ...any)) {
	if problem, rule := mcp.MetaKeyFormProblem(key); rule != "" {
		add(rule, "%s has the _meta %s", what, problem)
	}
	if rule := mcp.MetaKeyReservedBy(key, version); rule != "" {
		add(rule, "%s has the _meta key %q under a prefix reserved for MCP that MCP does not define", what, key)
	}
	if problem := mcp.TraceKeyProblem(key, value); problem != "" {
		add("JR-50", "%s has the _meta key %s", what, clip(problem))
	}
}

// judgeError judges an error response: its message (JR-12) and its code
// (JR-26, JR-28, JR-29, JR-31).
func judgeError(e *jsonrpc.Error, what string, add func(rule, format string, args ...any)) {
	if strings.ContainsAny(e.Message, "\r\n") {
		add("JR-12", "%s has a message of several lines, not one sentence: %q", what, clip(e.Message))
	}
	switch c := e.Code; {
	case c == jsonrpc.CodeURLElicitationRequired:
		if !listsURLElicitations(e.Data) {
			add("JR-26", "%s is -32042 without data.elicitations listing URL-mode elicitations, each with an elicitationId: data %s", what, clip(string(e.Data)))
		}
		add("JR-29", "%s has the code -32042, which 2026-07-28 does not define", what)
	case c >= -32019 && c <= -32000 && c != jsonrpc.CodeResourceNotFound:
		add("JR-28", "%s has the code %d, of the legacy range -32019…-32000", what, c)
	case c >= -32099 && c <= -32020 && !slices.Contains([]int64{jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingClientCapability, jsonrpc.CodeUnsupportedProtocolVersion}, c):
		add("JR-29", "%s has the code %d of the spec's range -32099…-32020, which the spec does not define (only -32020, -32021, -32022)", what, c)
	case c >= -32768 && c < -32099 && !slices.Contains([]int64{jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError}, c):
		add("JR-31", "%s has the code %d, inside the range -32768…-32000 that JSON-RPC and MCP reserve, not one they define", what, c)
	}
}

// judgeResult judges a result: the server's identity in a 2026-07-28
// result's _meta (JR-48), and the extension identifiers server/discover
// declares (LC-50).
func judgeResult(result json.RawMessage, answers, what string, add func(rule, format string, args ...any)) {
	var r struct {
		Meta         map[string]json.RawMessage `json:"_meta"`
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(result, &r)
	if v := r.Meta[mcp.MetaServerInfo]; len(v) == 0 || v[0] != '{' {
		add("JR-48", "%s has no %s object in its _meta", what, mcp.MetaServerInfo)
	}
	if answers != mcp.MethodDiscover {
		return
	}
	for id := range r.Capabilities.Extensions {
		if problem := mcp.ExtensionIDProblem(id); problem != "" {
			add("LC-50", "server/discover declares an extension whose identifier is not a _meta key with a prefix: %s", problem)
		}
	}
}

// judgeViolations ends the check with the worst of what was found: the
// first rule broken at the highest level, with every breach of that level.
func judgeViolations(c *run.C, transport string, found []violation) {
	for _, level := range []check.Level{check.MUST, check.SHOULD} {
		var at []string
		var first string
		for _, v := range found {
			if conventionLevels[v.rule] == level {
				if first == "" {
					first = v.rule
				}
				at = append(at, v.rule+": "+v.what)
			}
		}
		if first != "" {
			shown := at[:min(len(at), maxShown)]
			c.RequireRuleAt(first, level, false, "every message the server sends keeps the rules its schema does not encode ("+transport+")",
				"%d breach(es):\n  %s", len(at), strings.Join(shown, "\n  "))
		}
	}
}

// maxShown bounds the breaches a failure lists.
const maxShown = 5
