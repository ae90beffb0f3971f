package run

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/target"
)

// RequireCancelsOwnRequests judges every notifications/cancelled among
// sent, the messages the client sent over transport in the order they
// went out: each carries a requestId (CN-03) that names a request the
// client itself sent before it (CN-01). Whether the client still believed
// that request running is not judged: a response may cross the cancel on
// the wire. It returns the ids the cancels name.
func (c *C) RequireCancelsOwnRequests(transport string, sent []*jsonrpc.Message) []jsonrpc.ID {
	issued := map[string]bool{}
	var named []jsonrpc.ID
	for _, m := range sent {
		if m.Kind() == jsonrpc.KindRequest {
			issued[m.ID.Key()] = true
		}
		if m.Kind() != jsonrpc.KindNotification || m.Method != "notifications/cancelled" {
			continue
		}
		var p struct {
			RequestID *jsonrpc.ID `json:"requestId"`
		}
		ok := json.Unmarshal(m.Params, &p) == nil && p.RequestID != nil && !p.RequestID.IsZero()
		c.RequireRule("CN-03", ok, "notifications/cancelled names the request it cancels in requestId, mandatory for an ordinary request",
			"over %s the client sent notifications/cancelled with params %s", transport, m.Params)
		if !ok {
			continue
		}
		c.RequireRule("CN-01", issued[p.RequestID.Key()], "notifications/cancelled names a request the client itself sent earlier",
			"over %s the client cancelled request %s, which it had not sent before the cancel (its requests so far: %s)", transport, p.RequestID, describeIDs(issued))
		named = append(named, *p.RequestID)
	}
	return named
}

// RequireLateAnswerIgnored judges the call that followed a cancelled one,
// over a transport where the answer to the cancelled call (late, an error)
// reached the client before that call's own answer: the client ignores
// the late answer (CN-06), so the call succeeds.
func (c *C) RequireLateAnswerIgnored(transport string, next target.Call) {
	c.RequireRule("CN-06", next.OK(), fmt.Sprintf("the call after the cancelled one, %q, succeeds: the late answer (an error) to the cancelled request, which arrived first, is ignored", next.Tool),
		"over %s the call ended %s: %s", transport, next.Outcome, next.Error)
}

// describeIDs lists the keys of ids, for a failure message.
func describeIDs(ids map[string]bool) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(ids)), ", ")
}
