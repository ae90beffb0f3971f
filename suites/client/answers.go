package client

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// How a client answers what a server sends it, judged on every response
// it sends the client-requests fake: in the legacy era each one as JSON-RPC
// shapes it, to the request whose id it echoes, unknown methods refused
// with -32601, bad params with -32602, and stale cancellations ignored; in 2026-07-28, whose
// servers send no requests, none at all.

var _ = clientCheck(check.Descriptor{
	ID: "client.jsonrpc.answers",
	Title: "every response the client sends echoes its request's id with its type and holds one well-formed result or error; an unknown method gets -32601, bad params -32602, " +
		"stale cancellations are ignored; in 2026-07-28 the client sends no responses",
	Requirement: "Legacy era, against a server that cancels a ping already answered and a request it never sent, pings with the integer id 7 and sends a request of a method " +
		"no version defines: every response the client sends echoes the id of the request it answers with its JSON type (JR-07) and carries exactly one of result and error " +
		"(JR-08), the result an object and the error an object with code and message (JR-09), the code an integer (JR-11) and the message one line (JR-12); the unknown " +
		"method is answered with -32601 (JR-22), a sampling request without messages (to a client that declares sampling) with -32602 (JR-23); the stale cancellations get no reply (CN-08) and the client goes on answering (CN-07). 2026-07-28: the client sends no " +
		"JSON-RPC response at all, its answers to an input round going into the retry (JR-17; over stdio ST-12).",
	Rules: []string{"JR-07", "JR-08", "JR-09", "JR-11", "JR-12", "JR-22", "JR-23", "CN-07", "CN-08", "JR-17", "ST-12"},
	Eras:  check.BothEras,
	KilledBy: []mutant.Name{mutant.IDEchoedAsString, mutant.ResultNotObject, mutant.UnknownMethodInternalError, mutant.ClientErrorMultiline,
		mutant.SamplingParamsUnchecked, mutant.StaleCancelAnswered, mutant.StaleCancelFatal, mutant.ModernInputAnswered},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{Sampling: sampleResult, Roots: sharedRoots})
		if r.modern {
			wantNoResponses(c, t, r)
			return
		}
		for _, w := range r.Wire {
			for _, o := range responseObjects(w.Raw) {
				if rule, problem := responseProblem(o, r.version); problem != "" {
					c.RequireRule(rule, false, "every response a well-formed JSON-RPC result or error", "over %s (version %s) %s: %s", t, r.version, problem, clip(w.Raw))
				}
			}
		}
		wantStaleCancelsIgnored(c, t, r)
		wantIDsEchoed(c, t, r)
		m, ok := r.answers[fakeservers.KeyUnknownMethod]
		c.RequireRule("JR-22", ok && m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound,
			fmt.Sprintf("the request %s of the method %s, which no version defines, answered with error -32601", fakeservers.ReplyID(fakeservers.KeyUnknownMethod), fakeservers.MethodUnknownRequest),
			"over %s the client answered %s", t, answerOrNone(m, ok))
		if !r.asked[fakeservers.KeySampleBad] {
			return // a client that does not declare sampling is asked no sampling request with bad params
		}
		m, ok = r.answers[fakeservers.KeySampleBad]
		c.RequireRule("JR-23", ok && m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams,
			fmt.Sprintf("the sampling/createMessage %s without its required messages answered with error -32602", fakeservers.ReplyID(fakeservers.KeySampleBad)),
			"over %s the client answered %s", t, answerOrNone(m, ok))
	})
})

// wantNoResponses judges a 2026-07-28 session: the client sent no JSON-RPC
// response, not even to the fake's input round (JR-17; ST-12 over stdio).
func wantNoResponses(c *run.C, t check.Transport, r *answered) {
	rule := "JR-17"
	if t == check.Stdio {
		rule = "ST-12"
	}
	for _, w := range r.Wire {
		n := len(responseObjects(w.Raw))
		c.RequireRule(rule, n == 0, "no JSON-RPC response from a 2026-07-28 client: its servers send no requests, and input requests are answered in the retry",
			"over %s the client sent %d: %s", t, n, clip(w.Raw))
	}
}

// wantStaleCancelsIgnored judges the two stale cancellations: neither the
// ping already answered nor the id never sent gets another reply (CN-08),
// and the client goes on: the ping sent after them is answered (CN-07).
func wantStaleCancelsIgnored(c *run.C, t check.Transport, r *answered) {
	replies := map[string]int{}
	for _, m := range r.Sent {
		if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
			replies[m.ID.Key()]++
		}
	}
	pinged := fakeservers.ReplyID(fakeservers.KeyPing)
	c.RequireRule("CN-08", replies[pinged.Key()] <= 1 && replies[fakeservers.StaleRequestID.Key()] == 0,
		fmt.Sprintf("no reply to notifications/cancelled for the ping %s already answered, nor for %s never sent", pinged, fakeservers.StaleRequestID),
		"over %s the client sent %d responses with id %s and %d with id %s", t, replies[pinged.Key()], pinged, replies[fakeservers.StaleRequestID.Key()], fakeservers.StaleRequestID)
	asText := jsonrpc.StringID(fmt.Sprint(fakeservers.PingIntID))
	c.RequireRule("CN-07", replies[fakeservers.ReplyID(fakeservers.KeyPingInt).Key()]+replies[asText.Key()] > 0,
		fmt.Sprintf("the client goes on after the stale cancellations: the ping %s sent after them answered", fakeservers.ReplyID(fakeservers.KeyPingInt)),
		"over %s the client answered nothing after them; its tool calls: %s", t, run.DescribeCalls(r.Calls))
}

// wantIDsEchoed judges that every response echoes the id of a request of
// the fake, with its JSON type: the integer 7 as 7, not "7" (JR-07).
func wantIDsEchoed(c *run.C, t check.Transport, r *answered) {
	ids := map[string]bool{}
	var sent []string
	for key := range r.asked {
		ids[fakeservers.ReplyID(key).Key()] = true
		sent = append(sent, fakeservers.ReplyID(key).String())
	}
	slices.Sort(sent)
	for _, m := range r.Sent {
		if k := m.Kind(); (k == jsonrpc.KindResult || k == jsonrpc.KindError) && !ids[m.ID.Key()] {
			c.RequireRule("JR-07", false, fmt.Sprintf("every response echoes the id of the request it answers with its JSON type (the ping's integer %d as %d)", fakeservers.PingIntID, fakeservers.PingIntID),
				"over %s a response with id %s, which no request of the fake had (they had %s): %s", t, m.ID, strings.Join(sent, ", "), describeAnswer(m))
		}
	}
}

// responseObjects are the JSON-RPC objects of frame raw (a message or a
// batch) that are not requests or notifications: responses, read from the
// bytes, since the harness's decoder drops a malformed one.
func responseObjects(raw string) []map[string]json.RawMessage {
	var objects []map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &objects) != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &one) != nil {
			return nil
		}
		objects = []map[string]json.RawMessage{one}
	}
	var out []map[string]json.RawMessage
	for _, o := range objects {
		if _, isCall := o["method"]; !isCall {
			out = append(out, o)
		}
	}
	return out
}

// responseProblem says how response o breaks the JSON-RPC shape of version
// and the rule it breaks: both or neither of result and error (JR-08
// before 2025-11-25, JR-09 from it), a result that is no object or an
// error without code and message (JR-09), a code that is no integer
// (JR-11), a message of several lines (JR-12, from 2025-11-25); "" when it
// has none of these.
func responseProblem(o map[string]json.RawMessage, version string) (rule, problem string) {
	modern := version >= "2025-11-25"
	shape := "JR-08"
	if modern {
		shape = "JR-09"
	}
	result, hasResult := o["result"]
	rawErr, hasErr := o["error"]
	if hasResult == hasErr {
		return shape, "a response with both or neither of result and error"
	}
	if hasResult {
		if modern && !strings.HasPrefix(strings.TrimSpace(string(result)), "{") {
			return "JR-09", fmt.Sprintf("a result that is not an object: %s", clip(string(result)))
		}
		return "", ""
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(rawErr, &e) != nil || e == nil {
		return shape, fmt.Sprintf("an error that is not an object: %s", clip(string(rawErr)))
	}
	var code float64
	if raw, ok := e["code"]; !ok || json.Unmarshal(raw, &code) != nil || code != math.Trunc(code) {
		return "JR-11", fmt.Sprintf("an error whose code is not an integer: %s", clip(string(rawErr)))
	}
	var message *string
	if json.Unmarshal(e["message"], &message) != nil || message == nil {
		return shape, fmt.Sprintf("an error without a string message: %s", clip(string(rawErr)))
	}
	if modern && strings.ContainsAny(*message, "\r\n") {
		return "JR-12", fmt.Sprintf("an error message of several lines, not one short sentence: %q", clip(*message))
	}
	return "", ""
}

// clip shortens s for a failure message.
func clip(s string) string { return transcript.Clip(s, transcript.ExcerptBytes) }

// answerOrNone is the answer m as the failure shows it, or "nothing".
func answerOrNone(m *jsonrpc.Message, ok bool) string {
	if !ok {
		return "nothing"
	}
	return describeAnswer(m)
}
