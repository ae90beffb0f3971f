package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Every message a client sends in a session, judged together: its
// encoding, its ids, its _meta keys, the order of the initialize
// handshake and the capabilities it relies on.

// heldFor is how long the fake of client.wire.session holds its initialize
// reply back (at most a third of the client's startup timeout): whatever
// the client sends meanwhile was sent before it had the reply.
const heldFor = 250 * time.Millisecond

var _ = clientCheck(check.Descriptor{
	ID:    "client.wire.session",
	Title: "every message the client sends in a session is UTF-8, with ids never reused, well-formed _meta keys, the handshake in order and only the capabilities negotiated",
	Requirement: "Legacy era: the client opens with initialize (a server/discover probe may come first), sends nothing but ping before its reply, " +
		"then notifications/initialized, and completes its calls (LC-01, LC-02, LC-05, LC-06), going on in the version it proposed when the server accepts it (LC-08); it never reuses a request id in the session (JR-05) " +
		"and sends no request of a capability the server did not declare (LC-11). Both eras: every line or body is UTF-8 (JR-02); every _meta key " +
		"is an optional prefix of dot-separated labels and a name of the allowed characters (JR-42, JR-43), never a key of its own under a prefix " +
		"reserved for MCP (JR-44, JR-45); traceparent, tracestate and baggage follow W3C Trace Context and Baggage, and extension identifiers " +
		"follow the _meta key rules with a prefix (JR-50, LC-50, 2026-07-28), and a log level asked for in _meta is one of the eight (LG-02, 2026-07-28).",
	Rules: []string{"LC-02", "LC-01", "LC-05", "LC-06", "LC-08", "LC-11", "JR-02", "JR-05", "JR-42", "JR-43", "JR-44", "JR-45", "JR-50", "LC-50", "LG-02"},
	Eras:  []check.Era{check.Legacy, check.Modern},
	KilledBy: []mutant.Name{mutant.NotUTF8, mutant.IDsRestart, mutant.MetaKeyMalformed, mutant.MetaKeyReserved, mutant.PingBeforeInit,
		mutant.InitializedEarly, mutant.RequestBeforeInit, mutant.BrowseUndeclared, mutant.TraceparentInvalid, mutant.ProposesUnspoken,
		mutant.LogLevelInvalid},
	Waits: []check.Wait{{What: "the initialize reply the fake holds back over each transport, while the client may send nothing but ping",
		Setting: check.Scripted, Duration: heldFor, Times: 2}},
}, func(c *run.C) {
	legacy := c.JudgedEra() == check.Legacy
	eachTransport(c, func(t check.Transport) {
		f := fake{Case: "well-behaved"}
		if legacy {
			f = fake{Case: "slow-start", Delay: min(heldFor, c.ClientLimits().Startup/3)}
		}
		x := runOver(c, t, f, target.Invocation{})
		wantReached(c, t, x)
		for i, w := range x.Wire {
			c.RequireRule("JR-02", w.UTF8, "every line or body the client sends is UTF-8", "its line or body %d (%s) is not", i+1, wireSummary(w))
		}
		version := mcp.ModernVersion
		if legacy {
			version = wantHandshake(c, x, f.Delay)
			wantIDsUnique(c, x)
			wantDeclaredOnly(c, x)
		}
		wantMetaKeys(c, x, version)
	})
})

// wantHandshake judges the legacy handshake against a fake that holds its
// initialize reply back for held: initialize first (after server/discover
// probes), nothing but ping before the reply could have come,
// notifications/initialized after it, and the calls done (LC-01, LC-02,
// LC-05, LC-06); the fakes accept a legacy version the client proposes, so
// a client that does not go on proposed one it does not speak (LC-08). It
// returns the version negotiated.
func wantHandshake(c *run.C, x *exchange, held time.Duration) string {
	first := slices.IndexFunc(x.Sent, func(m *jsonrpc.Message) bool { return m.Method != mcp.MethodDiscover })
	c.RequireRule("LC-02", first >= 0 && x.Sent[first].Kind() == jsonrpc.KindRequest && x.Sent[first].Method == "initialize",
		"initialize is the first message (after any server/discover probe)", "the first is %s", firstSent(x.Sent, first))
	var initAt time.Time
	var version string
	initialized := false
	for _, w := range x.Wire {
		for _, m := range w.Messages {
			switch {
			case m.Kind() == jsonrpc.KindRequest && m.Method == "initialize" && initAt.IsZero():
				initAt, version = w.At, proposed(m)
			case initAt.IsZero():
			case m.Method == "notifications/initialized":
				initialized = true
				c.RequireRule("LC-05", !w.At.Before(initAt.Add(held)), "notifications/initialized after the initialize response",
					"it arrived %s after initialize, whose response the fake held back %s", w.At.Sub(initAt).Round(time.Millisecond), held)
			case m.Kind() == jsonrpc.KindRequest && m.Method != "ping":
				c.RequireRule("LC-06", !w.At.Before(initAt.Add(held)), "no request but ping before the initialize response",
					"%s arrived %s after initialize, whose response the fake held back %s", m.Method, w.At.Sub(initAt).Round(time.Millisecond), held)
			}
		}
	}
	c.RequireRule("LC-08", initialized || version != proposal(x.Sent[first]), "the client goes on in the version it proposed and the server accepted: it proposes one it speaks",
		"the client proposed %s, the server's initialize result named it, and the client never sent notifications/initialized", version)
	c.RequireRule("LC-05", initialized, "notifications/initialized after the initialize response", "the client never sent it")
	if x.Connect != nil {
		c.RequireRule("LC-01", x.Connect.Outcome == target.OutcomeOK, "the handshake completes", "the adapter reports: %s", x.Connect.Error)
	}
	c.RequireRule("LC-01", len(x.Calls) > 0 && slices.ContainsFunc(x.Calls, target.Call.OK), "the tool call after the handshake succeeds",
		"tool calls: %s", run.DescribeCalls(x.Calls))
	return version
}

// proposed is the version the fakes answer initialize m with: the one it
// proposes when it is a legacy one, else the newest.
func proposed(m *jsonrpc.Message) string {
	if p := proposal(m); slices.Contains(mcp.LegacyProtocolVersions, p) {
		return p
	}
	return mcp.LegacyProtocolVersions[0]
}

// proposal is the protocolVersion initialize request m proposes, or empty.
func proposal(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p) // unreadable: none
	return p.ProtocolVersion
}

// wantIDsUnique judges that no request id repeats in the session: over
// stdio the process's lifetime, over HTTP the connection (JR-05).
func wantIDsUnique(c *run.C, x *exchange) {
	seen := map[string]string{}
	for _, m := range x.Sent {
		if m.Kind() != jsonrpc.KindRequest {
			continue
		}
		earlier, reused := seen[m.ID.Key()]
		c.RequireRule("JR-05", !reused, "a request id is never used twice in the session",
			"%s reuses id %s of its %s", m.Method, m.ID.Key(), earlier)
		seen[m.ID.Key()] = m.Method
	}
}

// capabilityOf is the server capability a request method needs (LC-11).
var capabilityOf = map[string]string{
	"resources/": "resources", "prompts/": "prompts", "logging/setLevel": "logging", "completion/complete": "completions",
}

// wantDeclaredOnly judges that the client sends no request of a capability
// the fake, which declares tools alone, did not declare (LC-11).
func wantDeclaredOnly(c *run.C, x *exchange) {
	for _, m := range x.Sent {
		for prefix, capability := range capabilityOf {
			c.RequireRule("LC-11", m.Kind() != jsonrpc.KindRequest || !strings.HasPrefix(m.Method, prefix),
				"no request of a capability the server did not declare (it declares tools alone)",
				"the client sent %s, which needs the %s capability", m.Method, capability)
		}
	}
}

// wantMetaKeys judges every _meta key of the client's messages of protocol
// version, and in 2026-07-28 its log level and extension identifiers
// (JR-42 … JR-45, JR-50, LG-02, LC-50).
func wantMetaKeys(c *run.C, x *exchange, version string) {
	if version == "2025-03-26" {
		return // no _meta key rules yet
	}
	for _, m := range x.Sent {
		var body struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		raw := m.Params
		if m.Kind() == jsonrpc.KindResult {
			raw = m.Result
		}
		_ = json.Unmarshal(raw, &body) // no object: no _meta
		for k, v := range body.Meta {
			problem, rule := mcp.MetaKeyFormProblem(k)
			if rule == "" {
				if rule = mcp.MetaKeyReservedBy(k, version); rule != "" {
					problem = fmt.Sprintf("key %q: its prefix is reserved for MCP, which defines no such key", k)
				}
			}
			c.RequireRule(rule, problem == "", "every _meta key well-formed and not under a prefix reserved for MCP", "%s: %s", what(m), problem)
			if version == mcp.ModernVersion {
				problem := mcp.TraceKeyProblem(k, v)
				c.RequireRule("JR-50", problem == "", "trace keys in the W3C formats", "%s: %s", what(m), problem)
				var level string
				c.RequireRule("LG-02", k != mcp.MetaLogLevel || (json.Unmarshal(v, &level) == nil && slices.Contains(mcp.LogLevels(), level)),
					fmt.Sprintf("%s one of the eight levels %v", mcp.MetaLogLevel, mcp.LogLevels()), "%s: it is %s", what(m), v)
			}
		}
		if version == mcp.ModernVersion {
			wantExtensionIDs(c, m, body.Meta[mcp.MetaClientCapabilities])
		}
	}
}

// wantExtensionIDs judges the extension identifiers in the capabilities a
// 2026-07-28 request declares: _meta keys with a prefix (LC-50).
func wantExtensionIDs(c *run.C, m *jsonrpc.Message, capabilities json.RawMessage) {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(capabilities, &caps) // none: no extensions
	for id := range caps.Extensions {
		problem := mcp.ExtensionIDProblem(id)
		c.RequireRule("LC-50", problem == "", "extension identifiers follow the _meta key rules, with a prefix", "%s: %s", what(m), problem)
	}
}

// firstSent names message i of msgs, the first but server/discover probes.
func firstSent(msgs []*jsonrpc.Message, i int) string {
	if i < 0 {
		return "none: the client sent only server/discover"
	}
	return what(msgs[i])
}

// wireSummary names the messages of one line or body for a failure.
func wireSummary(w wire) string {
	if len(w.Messages) == 0 {
		return "no JSON-RPC message"
	}
	names := make([]string, len(w.Messages))
	for i, m := range w.Messages {
		names[i] = what(m)
	}
	return strings.Join(names, ", ")
}

// what names message m for a failure.
func what(m *jsonrpc.Message) string {
	if m.Method != "" {
		return fmt.Sprintf("%s %s", m.Kind(), m.Method)
	}
	return fmt.Sprintf("%s to id %s", m.Kind(), m.ID.Key())
}
