package server

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The 2026-07-28 streams: subscriptions/listen (SB-01 … SB-03), what goes
// on it and what does not (PR-11, SB-06), and the server's use of
// notifications/cancelled (CN-11). A server that answers
// subscriptions/listen with an error serves no subscriptions: these checks
// are UNIMPLEMENTED then.

func init() {
	// The official suite's hooks that make a server announce a change.
	officialFixtures["tool-list-change"] = []run.Fixture{{Tool: "test_trigger_tool_change"}}
	officialFixtures["prompt-list-change"] = []run.Fixture{{Tool: "test_trigger_prompt_change"}}
}

// listenStream is a subscriptions/listen stream a check opened. Over stdio
// it shares the peer's connection, and its messages are those that name
// it: notifications whose _meta carries its subscription id, and its
// response. Over HTTP it is the SSE answer of a POST of its own: every
// message of that connection is the stream's, and the check's requests go
// over another.
type listenStream struct {
	p     *peer // where the stream's messages arrive
	own   bool  // p is the stream's own connection (HTTP)
	id    jsonrpc.ID
	asked mcp.SubscriptionFilter
	first *jsonrpc.Message // the stream's first message
}

// listenID is the id of the listen requests the checks send, a string so
// that its echo as a subscription id keeps its JSON type visibly.
var listenID = jsonrpc.StringID("mcpconform-listen")

// modernSend sends a 2026-07-28 request without waiting for its answer.
func (p *peer) modernSend(id jsonrpc.ID, method string, params map[string]any) {
	if h, ok := p.conn.(*httpConn); ok {
		h.version, h.modern = mcp.ModernVersion, true
	}
	p.modern = mcp.ModernVersion
	p.message(id, method, modernParams(mcp.ModernVersion, params))
}

// openListen opens a listen stream beside p asking for filter, and reads
// its first message; p's requests are of the 2026-07-28 era from then on.
// A server that refuses the stream with an error makes the check
// UNIMPLEMENTED; one that sends nothing for it fails the check.
func openListen(c *run.C, p *peer, asked mcp.SubscriptionFilter) *listenStream {
	p.modern = mcp.ModernVersion
	l := &listenStream{p: p, id: listenID, asked: asked}
	if p.transport == string(check.HTTP) {
		l.p, l.own = openPeer(c, check.HTTP), true
	}
	l.p.modernSend(l.id, mcp.MethodListen, map[string]any{"notifications": asked})
	d := l.p.patience()
	l.first = l.p.wait(l.onStream, d)
	c.Require(l.first != nil, "a message for the subscriptions/listen stream ("+p.transport+")", "%s", l.p.silence(d))
	if l.first.Error != nil {
		c.Unimplemented(fmt.Sprintf("the server answers subscriptions/listen with %s: it serves no subscriptions (%s)", describe(l.first), p.transport))
	}
	return l
}

// onStream reports whether m belongs to the stream.
func (l *listenStream) onStream(m *jsonrpc.Message) bool {
	switch {
	case l.own:
		return true
	case anyResponse(m):
		return m.ID.Key() == l.id.Key()
	}
	id, ok := subscriptionID(m)
	return ok && id.Key() == l.id.Key()
}

// subscriptionID reads the _meta subscriptionId of a notification.
func subscriptionID(m *jsonrpc.Message) (jsonrpc.ID, bool) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	raw, named := p.Meta[mcp.MetaSubscriptionID]
	var id jsonrpc.ID
	if !named || json.Unmarshal(raw, &id) != nil || id.IsZero() {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// where names the stream's messages for a verdict.
func (l *listenStream) where() string {
	if l.own {
		return "on the listen stream (http)"
	}
	return fmt.Sprintf("tagged with subscription %s (stdio)", l.id)
}

// callModern calls the tool of fixture f in the 2026-07-28 era with _meta
// extra (e.g. a progressToken) and returns its response.
func (p *peer) callModern(f run.Fixture, extra map[string]any) *jsonrpc.Message {
	params := modernParams(mcp.ModernVersion, p.callParams(f, nil))
	meta := params["_meta"].(map[string]any)
	for k, v := range extra {
		meta[k] = v
	}
	return p.modernRequest("tools/call", mcp.ModernVersion, params)
}

// announce calls the trigger of role (a tool that makes the server
// announce a change) when the server offers one the run may call, and
// reports whether it did.
func announce(c *run.C, p *peer, role string) bool {
	found, _, _ := offeredFixtures(c, p, role)
	if len(found) == 0 {
		return false
	}
	m := p.callModern(found[0], nil)
	c.Require(m.Error == nil, found[0].Tool+" answers ("+p.transport+")", "%s", describe(m))
	return true
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.subscriptions.acknowledged-first",
	Title:       "the first message of a subscriptions/listen stream is its acknowledgement, naming a subset of what was asked",
	Requirement: "The first message for a subscription is notifications/subscriptions/acknowledged, listing the subset of the requested notifications the server honours; nothing for that subscription precedes it.",
	Rules:       []string{"SB-02", "SB-01"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ListenNoticeBeforeAck},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		// The order must hold for every subscription: a server whose
		// acknowledgement races its other messages (a queue of its own for
		// notifications, written by another goroutine) loses the race now
		// and then, so the check opens several, each on a fresh connection.
		for attempt := range listenAttempts {
			if attempt > 0 {
				p = openPeer(c, check.Transport(p.transport))
			}
			l := openListen(c, p, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
			c.Require(l.first.Method == mcp.NotificationAcknowledged, fmt.Sprintf("notifications/subscriptions/acknowledged first, %s, on each of %d subscriptions", l.where(), listenAttempts),
				"subscription %d: %s", attempt+1, describe(l.first))
			var ack struct {
				Notifications *mcp.SubscriptionFilter `json:"notifications"`
			}
			err := json.Unmarshal(l.first.Params, &ack)
			c.Require(err == nil && ack.Notifications != nil, "params.notifications: the filter honoured ("+p.transport+")", "params %s", clip(string(l.first.Params)))
			c.Require(subset(*ack.Notifications, l.asked), fmt.Sprintf("a subset of what was asked (%s)", p.transport), "it acknowledges %s", clip(string(l.first.Params)))
		}
	})
})

// listenAttempts is how many subscriptions server.subscriptions.acknowledged-first
// opens over each transport.
const listenAttempts = 3

// subset reports whether honoured asks for nothing asked does not.
func subset(honoured, asked mcp.SubscriptionFilter) bool {
	for _, uri := range honoured.ResourceSubscriptions {
		if !slices.Contains(asked.ResourceSubscriptions, uri) {
			return false
		}
	}
	return (!honoured.ToolsListChanged || asked.ToolsListChanged) && (!honoured.PromptsListChanged || asked.PromptsListChanged) &&
		(!honoured.ResourcesListChanged || asked.ResourcesListChanged)
}

// listChanges are the list changes a check can make a server announce: the
// fixture role of the trigger, and the notification it brings.
var listChanges = []struct{ role, method string }{
	{"tool-list-change", mcp.NotificationToolsListChanged},
	{"prompt-list-change", mcp.NotificationPromptsListChanged},
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.subscriptions.subscription-id",
	Title:       "every notification of a subscriptions/listen stream carries the listen request's id as its subscriptionId",
	Requirement: "Every notification on a subscriptions/listen stream carries _meta io.modelcontextprotocol/subscriptionId equal to the listen request's JSON-RPC id.",
	Rules:       []string{"SB-03"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ListenUntagged},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		l := openListen(c, p, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
		ack := l.first
		if anyResponse(ack) {
			// The listen result came first (server.subscriptions.acknowledged-first
			// judges that, SB-02): the rule here is about the notifications,
			// and the acknowledgement may still follow it.
			d := l.p.patience()
			ack = l.p.wait(func(m *jsonrpc.Message) bool { return m.Method == mcp.NotificationAcknowledged }, d)
			if ack == nil {
				c.Log().Notef("no %s arrived within %s of the listen result (%s)", mcp.NotificationAcknowledged, d, p.transport)
			}
		}
		judged := 0
		if ack != nil {
			id, ok := subscriptionID(ack)
			c.Require(ok && id.Key() == l.id.Key(), fmt.Sprintf("the acknowledgement's subscriptionId is %s (%s)", l.id, p.transport), "params %s", clip(string(ack.Params)))
			judged++
		}
		for _, change := range listChanges {
			if !announce(c, p, change.role) {
				c.Log().Notef("no tool for the %q behaviour: the stream's %s was not observed", change.role, change.method)
				continue
			}
			d := l.p.patience()
			// Over stdio the notification may come untagged: any of its
			// method is the stream's, the check holding no other.
			n := l.p.wait(func(m *jsonrpc.Message) bool { return m.Method == change.method }, d)
			if n == nil {
				c.Log().Notef("no %s arrived within %s of the announcing call (%s)", change.method, d, p.transport)
				continue
			}
			id, ok := subscriptionID(n)
			c.Require(ok && id.Key() == l.id.Key(), fmt.Sprintf("%s carries subscriptionId %s (%s)", change.method, l.id, p.transport), "params %s", clip(string(n.Params)))
			judged++
		}
		if judged == 0 {
			c.Unimplemented(fmt.Sprintf("no notification of the subscriptions/listen stream was seen to judge (%s): the listen result came without an acknowledgement, "+
				"and no tool announces a list change; map one in a --fixtures file, e.g. tool-list-change: {tool: NAME}", p.transport))
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.subscriptions.opted-in-only",
	Title:       "a subscriptions/listen stream carries only the notifications the client opted into",
	Requirement: "A server sends on a subscriptions/listen stream only the notification types the client opted into (toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions).",
	Rules:       []string{"SB-01"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ListenIgnoresFilter},
	Waits:       []check.Wait{{What: "notifications on the listen stream, after the announced changes", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		// Opt into prompt list changes only, then make the server announce
		// a tool list change before a prompt list change.
		l := openListen(c, p, mcp.SubscriptionFilter{PromptsListChanged: true})
		if !announce(c, p, "tool-list-change") {
			c.Unimplemented("no tool announces a tool list change: the server offers no test_trigger_tool_change; map one in a --fixtures file, e.g. tool-list-change: {tool: NAME}")
		}
		announced := announce(c, p, "prompt-list-change")
		var seen []*jsonrpc.Message
		if announced {
			if n := l.p.wait(func(m *jsonrpc.Message) bool {
				return l.onStream(m) && m.Method == mcp.NotificationPromptsListChanged || m.Method == mcp.NotificationToolsListChanged
			}, l.p.patience()); n != nil {
				seen = append(seen, n)
			}
		}
		for _, m := range append(l.p.unread, l.p.quiet(c.QuietWindow())...) {
			if l.onStream(m) || m.Method == mcp.NotificationToolsListChanged {
				seen = append(seen, m)
			}
		}
		for _, m := range seen {
			c.Require(m.Method != mcp.NotificationToolsListChanged, "no notifications/tools/list_changed on a stream that opted into prompt list changes only ("+p.transport+")", "%s arrived", m.Method)
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.subscriptions.no-request-notifications",
	Title:       "a request's progress and log messages never go on a subscriptions/listen stream",
	Requirement: "Progress and log notifications about a request go only on that request's own response stream, never on a subscriptions/listen stream; a listen stream carries only what the client opted into.",
	Rules:       []string{"HT-22", "SB-01", "PR-11", "SB-06", "LG-13"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ProgressOnListenStream},
	Waits:       []check.Wait{{What: "notifications on the listen stream, after the calls", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		l := openListen(c, p, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true})
		calls := 0
		for _, role := range []string{"progress", "logging"} {
			found, _, _ := offeredFixtures(c, p, role)
			for _, f := range found {
				m := p.callModern(f, map[string]any{"progressToken": "mcpconform-progress", mcp.MetaLogLevel: "debug"})
				c.Require(m.Error == nil, f.Tool+" answers ("+p.transport+")", "%s", describe(m))
				calls++
			}
		}
		if calls == 0 {
			c.Unimplemented("no tool reports progress or logs: map one in a --fixtures file (progress: {tool: NAME}, logging: {tool: NAME})")
		}
		for _, m := range append(l.p.unread, l.p.quiet(c.QuietWindow())...) {
			if l.onStream(m) {
				c.Require(m.Method != "notifications/progress" && m.Method != "notifications/message",
					"no progress or log notification "+l.where(), "%s %s", m.Method, clip(string(m.Params)))
			}
		}
	})
})

var _ = stdioServerCheck(check.Descriptor{
	ID:          "server.modern.cancelled-only-for-listen",
	Title:       "the server sends notifications/cancelled only to end a subscriptions/listen stream, not about a request the client cancelled",
	Requirement: "Servers send notifications/cancelled only to tear down a subscriptions/listen stream, referencing its id, and for no other purpose.",
	Rules:       []string{"CN-11"},
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.CancelEchoed},
	Waits:       []check.Wait{{What: "messages about the cancelled request, after its cancellation", Setting: check.QuietWindow}},
}, func(c *run.C) {
	_, p := stdioServer(c)
	p.modern = mcp.ModernVersion
	f := fixture(c, p, "slow")
	id := p.id()
	p.modernSend(id, "tools/call", p.callParams(f, nil))
	p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform cancels"})
	for _, m := range append(p.unread, p.quiet(c.QuietWindow())...) {
		if m.Method != "notifications/cancelled" {
			continue
		}
		var params struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &params)
		c.Failf("no notifications/cancelled but to end a subscriptions/listen stream", "notifications/cancelled for request %s, a tools/call the client cancelled", params.RequestID)
	}
})

var _ = stdioServerCheck(check.Descriptor{
	ID:          "server.subscriptions.cancel-ends-stream",
	Title:       "a subscriptions/listen stream the client cancels with notifications/cancelled ends: nothing more for it, no response",
	Requirement: "On notifications/cancelled the receiver stops the work and sends no response for the cancelled request; a cancelled subscriptions/listen stream carries nothing more.",
	Rules:       []string{"CN-04"},
	Level:       check.SHOULD,
	Eras:        check.ModernEra,
	KilledBy:    []mutant.Name{mutant.ListenIgnoresCancel},
	Waits:       []check.Wait{{What: "messages of the cancelled listen stream, after a change it opted into", Setting: check.QuietWindow}},
}, func(c *run.C) {
	_, p := stdioServer(c)
	l := openListen(c, p, mcp.SubscriptionFilter{ToolsListChanged: true})
	p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": l.id, "reason": "mcpconform closes the subscription"})
	if !announce(c, p, "tool-list-change") {
		c.Unimplemented("no tool announces a tool list change: the server offers no test_trigger_tool_change; map one in a --fixtures file, e.g. tool-list-change: {tool: NAME}")
	}
	for _, m := range append(p.unread, p.quiet(c.QuietWindow())...) {
		c.Require(!l.onStream(m) && m.Method != mcp.NotificationToolsListChanged,
			"nothing for the cancelled subscription "+l.where(), "%s", describe(m))
	}
})
