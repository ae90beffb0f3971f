package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The request context of a server's handlers, reached through fixtures:
// CX-02 … CX-08, PR-01 … PR-08, CN-04, LG-04, TL-08, LC-11.

var _ = serverCheck(check.Descriptor{
	ID:          "server.tools.failure-is-result",
	Title:       "a tool that fails reports it as a result with isError, not as a JSON-RPC error",
	Requirement: "Failures inside a tool are reported as a normal result with isError: true.",
	Rules:       []string{"TL-08", "TL-07"},
	Level:       check.SHOULD,
	KilledBy:    []mutant.Name{mutant.ToolFailureAsRPCError},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		f := fixture(c, p, "failing")
		m := p.request("tools/call", p.callParams(f, nil))
		var r struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(m.Result, &r)
		c.Require(m.Error == nil && r.IsError, "a result with isError true ("+p.transport+")", "%s", describe(m))
	})
})

// progressOf returns the progress values for token among msgs, and how many
// progress notifications carried another token.
func progressOf(msgs []*jsonrpc.Message, token jsonrpc.ID) (values []float64, wrongToken int) {
	for _, m := range msgs {
		if m.Method != "notifications/progress" {
			continue
		}
		var p struct {
			ProgressToken jsonrpc.ID `json:"progressToken"`
			Progress      float64    `json:"progress"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.ProgressToken.Key() != token.Key() {
			wrongToken++
			continue
		}
		values = append(values, p.Progress)
	}
	return values, wrongToken
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.progress.echoed-and-increasing",
	Title:       "progress carries the request's token verbatim (string or number) and strictly increases",
	Requirement: "Progress notifications carry the request's progressToken verbatim and their progress values strictly increase.",
	Rules:       []string{"PR-01", "PR-03", "CX-03"},
	KilledBy:    []mutant.Name{mutant.ProgressNotIncreasing},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		// Each call has a connection of its own, so progress a server sends
		// late for one call cannot be taken for another's (that lateness is
		// server.progress.none-after-response's to judge).
		for k, f := range fixtures(c, p, "progress") {
			for _, token := range []jsonrpc.ID{jsonrpc.StringID("mcpconform-progress-" + f.Tool), jsonrpc.IntID(int64(4242 + k))} {
				p := p.reopen()
				m := p.request("tools/call", p.callParams(f, map[string]any{"progressToken": token}))
				c.Require(m.Error == nil, "the progress tool succeeds ("+p.transport+")", "%s", describe(m))
				values, wrong := progressOf(p.unread, token)
				c.Require(wrong == 0, fmt.Sprintf("every progress notification carries token %s", token), "%d carried another token", wrong)
				for i := 1; i < len(values); i++ {
					c.Require(values[i] > values[i-1], "strictly increasing progress ("+p.transport+")", "progress of %s went %v", f.Tool, values)
				}
			}
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.progress.none-without-token",
	Title:       "a request without a progress token gets no progress notifications",
	Requirement: "Without a progressToken, reporting progress is a silent no-op: no notifications/progress.",
	Rules:       []string{"PR-06", "CX-03"},
	KilledBy:    []mutant.Name{mutant.ProgressWithoutToken},
	Waits:       []check.Wait{{What: "progress notifications, after the response", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		f := fixture(c, p, "progress")
		p.unread = nil
		p.request("tools/call", p.callParams(f, nil))
		late := p.quiet(c.QuietWindow())
		for _, m := range append(p.unread, late...) {
			c.Require(m.Method != "notifications/progress", "no progress notification ("+p.transport+")", "one arrived")
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.progress.none-after-response",
	Title:       "no progress notification follows the final response",
	Requirement: "Progress notifications stop once the operation completed: nothing after the final response.",
	Rules:       []string{"PR-08", "CX-03"},
	KilledBy:    []mutant.Name{mutant.ProgressAfterResponse},
	Waits:       []check.Wait{{What: "progress notifications, after the response and a ping", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, nil)
		for _, f := range fixtures(c, p, "progress") {
			token := jsonrpc.StringID("mcpconform-late-" + f.Tool)
			p.request("tools/call", p.callParams(f, map[string]any{"progressToken": token}))
			p.unread = nil
			p.request("ping", nil) // anything stale for the finished request comes before or with this
			late, _ := progressOf(append(p.unread, p.quiet(c.QuietWindow())...), token)
			c.Require(len(late) == 0, "no progress after the response ("+p.transport+")", "%d progress notification(s) for %s came after it", len(late), f.Tool)
		}
	})
})

// levels are the eight syslog levels, least severe first (LG-02).
var levels = mcp.LogLevels()

var _ = serverCheck(check.Descriptor{
	ID:          "server.logging.threshold",
	Serial:      true, // the log level is session state
	Title:       "after logging/setLevel, no log message below the level arrives (each of the eight levels)",
	Requirement: "A log message is sent only if it is at least as severe as the level the client set with logging/setLevel.",
	Rules:       []string{"LG-04", "CX-02", "LG-02"},
	Capability:  "logging",
	KilledBy:    []mutant.Name{mutant.LogBelowThreshold},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initializeDeclaring("logging")
		f := fixture(c, p, "logging")
		for threshold, level := range levels {
			set := p.request("logging/setLevel", map[string]any{"level": level})
			c.Require(set.Error == nil, "setLevel "+level+" succeeds", "%s", describe(set))
			p.unread = nil
			p.request("tools/call", p.callParams(f, nil))
			// A request's log messages come before its response (on stdio in
			// line order, over HTTP on the request's stream); ones after it
			// are server.progress.none-after-response's kind of breach.
			for _, lm := range logMessages(p.unread) {
				rank := indexOf(levels, lm.Level)
				c.Require(rank >= threshold, fmt.Sprintf("only messages at %s or above (%s)", level, p.transport), "a %q message arrived", lm.Level)
			}
		}
	})
})

var _ = serverCheck(check.Descriptor{
	ID:          "server.logging.before-set-level",
	Serial:      true, // the log level is session state
	Title:       "log messages sent before any logging/setLevel are well-formed; which ones is reported as INFO",
	Requirement: "Before any logging/setLevel the server chooses which messages to send (LG-05); every notifications/message carries one of the eight levels and data.",
	Rules:       []string{"LG-05", "LG-02", "LG-07"},
	Level:       check.MUST,
	Capability:  "logging",
	KilledBy:    []mutant.Name{mutant.LogLevelMalformed},
}, func(c *run.C) {
	sent := map[string][]string{} // transport → levels, in order
	eachTransport(c, func(p *peer) {
		p.initializeDeclaring("logging")
		sent[p.transport] = []string{}
		for _, f := range fixtures(c, p, "logging") {
			p.unread = nil
			p.request("tools/call", p.callParams(f, nil))
			for _, lm := range logMessages(p.unread) {
				c.Require(indexOf(levels, lm.Level) >= 0 && len(lm.Data) > 0, "a level among "+strings.Join(levels, ", ")+" and data ("+p.transport+")",
					"params %s", lm.raw)
				sent[p.transport] = append(sent[p.transport], lm.Level)
			}
		}
	})
	var seen []string
	for _, t := range []string{"stdio", "http"} {
		if levels, ok := sent[t]; ok {
			seen = append(seen, fmt.Sprintf("%s: %d message(s) %v", t, len(levels), levels))
		}
	}
	c.Info("before any logging/setLevel the logging fixture sent " + strings.Join(seen, "; ") + " (LG-05 leaves the choice to the server)")
})

// logMessage is the params of one notifications/message (LG-07).
type logMessage struct {
	Level string          `json:"level"`
	Data  json.RawMessage `json:"data"`
	raw   json.RawMessage
}

// logMessages returns the params of the notifications/message among msgs.
func logMessages(msgs []*jsonrpc.Message) []logMessage {
	var out []logMessage
	for _, m := range msgs {
		if m.Method == "notifications/message" {
			lm := logMessage{raw: m.Params}
			_ = json.Unmarshal(m.Params, &lm)
			out = append(out, lm)
		}
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

var _ = serverCheck(check.Descriptor{
	ID:    "server.cancel.no-response",
	Title: "a cancelled request gets no response, and the server stays healthy; in 2026-07-28 over stdio too",
	Requirement: "On notifications/cancelled the receiver stops the work and sends no response for the cancelled request; " +
		"a 2026-07-28 server on stdio emits nothing more for the request after it.",
	Rules:    []string{"CN-04", "CX-04", "CN-07", "ST-14"},
	Level:    check.SHOULD,
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.AnswersCancelledRequest, mutant.ModernAnswersCancelled},
	Waits:    []check.Wait{{What: "a response to the cancelled request, after the cancellation", Setting: check.QuietWindow}},
}, func(c *run.C) {
	judged, settled := 0, 0
	eachTransport(c, func(p *peer) {
		t := check.Transport(p.transport)
		var eras []run.Judgement
		if e := c.ServerEras(t); e.Legacy || !e.Modern {
			eras = append(eras, c.JudgeInEra(check.Legacy, func() {
				if cancelLegacy(c, p) {
					judged++
				} else {
					settled++
				}
			}))
			p = nil
		}
		if c.ServerEras(t).Modern && t == check.Stdio {
			if p == nil {
				p = openPeer(c, t)
			}
			eras = append(eras, c.JudgeInEra(check.Modern, func() { cancelModern(c, p) }))
			judged++
		}
		c.Conclude(eras)
	})
	if judged == 0 && settled == 0 {
		c.NotApplicable("the server serves 2026-07-28 only over http, where a client cancels by closing the request's stream (HT-27), not with notifications/cancelled")
	}
	if judged == 0 {
		c.Unimplemented("the server answered the slow tool call with application/json once it was done, so no cancellation could reach it while it ran; map a slow tool whose POST answers with text/event-stream, or certify over stdio")
	}
})

// cancelLegacy cancels a slow tool call in 2025-11-25 and reports whether
// it judged: no response comes for it, and the server answers a ping.
func cancelLegacy(c *run.C, p *peer) bool {
	p.initialize(v1125, nil)
	f := fixture(c, p, "slow")
	id := p.id()
	p.message(id, "tools/call", p.callParams(f, nil))
	if h, ok := p.conn.(*httpConn); ok && h.settled() {
		// An application/json answer comes when the call is done: no
		// cancellation can overtake it over this transport.
		c.Log().Notef("the tool call's POST was answered %s before a cancellation could be sent; not judged over http", h.last)
		return false
	}
	p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform cancels"})
	got := p.wait(responseTo(id), c.QuietWindow())
	c.Require(got == nil, "no response to the cancelled request ("+p.transport+")", "%s", describe(got))
	ping := p.request("ping", nil)
	c.Require(ping.Error == nil, "the server still answers ping", "%s", describe(ping))
	return true
}

// cancelModern cancels a slow 2026-07-28 tool call over stdio: nothing
// more comes for it (ST-14's MUST NOT), and the server answers server/discover. Over
// HTTP a 2026-07-28 client cancels by closing the stream instead (HT-27).
func cancelModern(c *run.C, p *peer) {
	p.modern = mcp.ModernVersion
	f := fixture(c, p, "slow")
	id := p.id()
	p.modernSend(id, "tools/call", p.callParams(f, nil))
	p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform cancels"})
	got := p.wait(responseTo(id), c.QuietWindow())
	c.RequireRuleAt("ST-14", check.MUST, got == nil, "nothing more for the cancelled 2026-07-28 request (stdio)", "%s", describe(got))
	m := p.modernRequest(mcp.MethodDiscover, mcp.ModernVersion, modernParams(mcp.ModernVersion, nil))
	c.Require(m.Error == nil, "the server still answers server/discover", "%s", describe(m))
}

// reverseCheck: calling the role's fixture without declaring capability,
// no request of method reaches the client.
func reverseCheck(id, role, capability, method string, rules []string, killer mutant.Name) bool {
	return serverCheck(check.Descriptor{
		ID:          id,
		Title:       fmt.Sprintf("a client that did not declare %s never gets %s", capability, method),
		Requirement: "A server never sends a request for a capability the client did not declare.",
		Rules:       rules,
		KilledBy:    []mutant.Name{killer},
		Serial:      true, // what the client declared is session state
	}, func(c *run.C) {
		eachTransport(c, func(p *peer) {
			p.initialize(v1125, map[string]any{})
			f := fixture(c, p, role)
			id := p.id()
			p.message(id, "tools/call", p.callParams(f, nil))
			resp := p.wait(responseTo(id), c.Options().Patience)
			for _, m := range p.unread {
				if m.Kind() == jsonrpc.KindRequest && m.Method == method {
					// Answer it, so the server is not left waiting.
					p.raw(encodeError(m.ID))
					c.Failf("no "+method+" request ("+p.transport+")", "the server sent %s", method)
				}
			}
			// LC-11 forbids the request; that the call then ends is the
			// seed's context discipline (CX-05 … CX-08).
			c.RequireHardened(resp != nil, "the tool call ends (with an error or an isError result)", "no response within %s", c.Options().Patience)
		})
	})
}

func encodeError(id jsonrpc.ID) []byte {
	b, _ := jsonrpc.Encode(jsonrpc.NewError(id, jsonrpc.CodeMethodNotFound, "not declared"))
	return b
}

var _ = reverseCheck("server.reverse.sampling-only-when-declared", "sampling", "sampling", "sampling/createMessage",
	[]string{"CX-08", "CX-05", "LC-11"}, mutant.SamplingWithoutCapability)

var _ = reverseCheck("server.reverse.elicitation-only-when-declared", "elicitation", "elicitation", "elicitation/create",
	[]string{"CX-08", "CX-06", "LC-11"}, mutant.ElicitationWithoutCapability)

var _ = reverseCheck("server.reverse.roots-only-when-declared", "roots", "roots", "roots/list",
	[]string{"CX-08", "CX-07", "LC-11"}, mutant.RootsWithoutCapability)

var _ = serverCheck(check.Descriptor{
	ID:     "server.reverse.times-out",
	Serial: true, // what the client declared is session state
	Title:  "a request to the client that is never answered times out, the tool call ends, and a reply after that is ignored",
	Requirement: "A server never waits forever for a reply to its own request: reverse requests have timeouts, and the failure reaches the handler; " +
		"a reply that comes after the timeout is ignored, and the server stays healthy.",
	Rules:    []string{"CX-08", "CX-05", "LC-30", "LM-02", "CN-06"},
	Level:    check.SHOULD,
	KilledBy: []mutant.Name{mutant.ReverseRequestNoTimeout, mutant.LateReplyAnswered},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		p.initialize(v1125, map[string]any{"sampling": map[string]any{}})
		f := fixture(c, p, "sampling")
		// Never answer it: the tool call must still end. LC-30 asks for a
		// timeout but names no length: --timeout is the longest the
		// server's own may be, and the server answers within --patience
		// after it, so a server whose timeout is --timeout (as the
		// reference's default is) is not judged by a race.
		cfg := c.Options()
		bound := cfg.CheckDeadline + cfg.Patience
		if h, ok := p.conn.(*httpConn); ok {
			// The answer comes on the call's own stream, which must outlast
			// the bound (an exchange lasts --timeout otherwise).
			h.lasting(cfg.Patience + bound)
		}
		id := p.id()
		p.message(id, "tools/call", p.callParams(f, nil))
		asked := p.wait(func(m *jsonrpc.Message) bool { return m.Method == "sampling/createMessage" }, cfg.Patience)
		if asked == nil {
			c.Unimplemented(fmt.Sprintf("the sampling tool %q sent no sampling/createMessage within %s (%s): map a tool that samples in the fixtures file", f.Tool, cfg.Patience, p.transport))
		}
		resp := p.wait(responseTo(id), bound)
		c.Require(resp != nil, fmt.Sprintf("the tool call ends within %s (--timeout %s, the longest the server's own timeout may be, and --patience %s for its answer after it) although its sampling request is never answered (%s)",
			bound, cfg.CheckDeadline, cfg.Patience, p.transport),
			"no response: the server is still waiting")
		replyLate(c, p, asked.ID)
	})
})

// replyLate answers the server's request id after the server gave up on
// it, then pings: the server ignores the late reply, sending nothing
// about it, and stays healthy (CN-06).
func replyLate(c *run.C, p *peer, id jsonrpc.ID) {
	late, err := jsonrpc.NewResult(id, map[string]any{"role": "assistant", "model": "mcpconform",
		"content": map[string]any{"type": "text", "text": "a reply after the server gave up"}})
	c.Require(err == nil, "the check can encode its late reply", "%v", err)
	b, _ := jsonrpc.Encode(late)
	p.raw(b)
	pingID := jsonrpc.StringID("mcpconform-ping-after-late-reply")
	p.message(pingID, "ping", nil)
	pong := p.wait(responseTo(pingID), p.patience())
	c.RequireRule("CN-06", pong != nil && pong.Error == nil, "the server answers a ping after the late reply to its request "+id.String()+" ("+p.transport+")", "%s", describe(pong))
	answer := p.wait(func(m *jsonrpc.Message) bool { return m.ID.Key() == id.Key() }, 0)
	c.RequireRule("CN-06", answer == nil, "the server ignores the late reply to its request "+id.String()+" ("+p.transport+")", "it sent %s", describe(answer))
}
