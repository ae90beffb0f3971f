package client

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Progress the client sends: the tokens in its requests' _meta, and its
// notifications/progress while it answers the fake's sampling request,
// which carries a token in the legacy era. Judged passively over the
// session with client-requests: only what the wire shows in order (a line
// after a line over stdio; over HTTP a POST that began after another one
// ended).

var _ = clientCheck(check.Descriptor{
	ID: "client.progress.well-formed",
	Title: "every progress token the client sends is a string or integer unique among its active requests; its progress on a server request " +
		"strictly increases, names only that request's token and stops with its answer",
	Requirement: "A progressToken in the _meta of a client's request is a string or an integer, and no two requests in flight at once share one (PR-01); " +
		"the notifications/progress the client sends reference only the token of a request of the server it is still working on (PR-06), " +
		"their progress strictly increases (PR-03), and none follows its answer to that request (PR-08).",
	Rules:    []string{"PR-01", "PR-03", "PR-06", "PR-08"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.ClientProgressAfterResponse},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, target.Answers{Sampling: sampleResult})
		tokens := wantRequestTokens(c, t, r)
		notes := wantProgress(c, t, r)
		if tokens == 0 && notes == 0 {
			c.Unimplemented(fmt.Sprintf("over %s the client sent no progressToken in its requests and no notifications/progress on the sampling request %s that carried the token %q; "+
				"to be judged, send a progressToken in the _meta of requests (tools/call) or report progress on a server request that carries one",
				t, fakeservers.ReplyID(fakeservers.KeySample), fakeservers.SampleProgressToken))
		}
	})
})

// at is where a message of the client stands in its wire: the line or POST
// and its place in a batch.
type at struct{ wire, msg int }

// after reports whether the client unambiguously sent a after b: a later
// line over stdio, a POST that began after b's ended over HTTP, or later in
// the same batch.
func (x *exchange) after(t check.Transport, a, b at) bool {
	switch {
	case a.wire == b.wire:
		return a.msg > b.msg
	case t == check.Stdio:
		return a.wire > b.wire
	}
	return x.Wire[a.wire].At.After(x.Wire[b.wire].End)
}

// each calls f with every message the client sent on its wire and where.
func (x *exchange) each(f func(m *jsonrpc.Message, where at)) {
	for i, w := range x.Wire {
		for j, m := range w.Messages {
			f(m, at{i, j})
		}
	}
}

// progressTokenOf is the progressToken in the _meta of params, as its
// JSON text ("" when it has none).
func progressTokenOf(params json.RawMessage) string {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.Meta.ProgressToken)
}

// wantRequestTokens judges the progress tokens of the client's requests: a
// string or an integer (PR-01), none shared by two requests in flight at
// once, the later sent before the fake answered the earlier; it returns
// how many it saw.
func wantRequestTokens(c *run.C, t check.Transport, r *answered) int {
	type carried struct {
		id    jsonrpc.ID
		where at
	}
	seen := map[string][]carried{}
	n := 0
	r.each(func(m *jsonrpc.Message, where at) {
		token := progressTokenOf(m.Params)
		if m.Kind() != jsonrpc.KindRequest || token == "" {
			return
		}
		n++
		c.RequireRule("PR-01", stringOrInteger(token), "every progressToken a string or an integer", "over %s the %s request %s carries the progressToken %s", t, m.Method, m.ID, token)
		for _, earlier := range seen[token] {
			answered, ok := r.Answered[earlier.id.Key()]
			c.RequireRule("PR-01", !ok || !r.Wire[where.wire].At.Before(answered), "a progressToken unique among the client's requests in flight",
				"over %s the %s request %s carries the progressToken %s of request %s, which the fake had not answered yet", t, m.Method, m.ID, token, earlier.id)
		}
		seen[token] = append(seen[token], carried{m.ID, where})
	})
	return n
}

// stringOrInteger reports whether raw is a JSON string or an integer.
func stringOrInteger(raw string) bool {
	if strings.HasPrefix(raw, `"`) {
		return true
	}
	var f float64
	return json.Unmarshal([]byte(raw), &f) == nil && f == math.Trunc(f)
}

// wantProgress judges the client's notifications/progress against the
// tokens of the fake's requests: each names one (PR-06), strictly
// increases on the one before it for that token (PR-03), and comes before
// the client's answer to its request (PR-08); it returns how many it saw.
func wantProgress(c *run.C, t check.Transport, r *answered) int {
	supplied := map[string]string{} // token → key of the request that carried it
	if !r.modern {
		for _, q := range fakeservers.ClientRequests(r.caps, r.version) {
			if b, err := json.Marshal(q.Params); err == nil && progressTokenOf(b) != "" {
				supplied[progressTokenOf(b)] = q.Key
			}
		}
	}
	answers := map[string]at{}
	r.each(func(m *jsonrpc.Message, where at) {
		if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
			answers[m.ID.Key()] = where
		}
	})
	type step struct {
		progress float64
		where    at
	}
	last := map[string]step{}
	n := 0
	r.each(func(m *jsonrpc.Message, where at) {
		if m.Kind() != jsonrpc.KindNotification || m.Method != "notifications/progress" {
			return
		}
		n++
		var p struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress float64         `json:"progress"`
		}
		_ = json.Unmarshal(m.Params, &p) // unreadable: no token, which PR-06 refuses
		token := string(p.Token)
		key, ok := supplied[token]
		c.RequireRule("PR-06", ok, "progress only for a token the server supplied in a request the client is working on",
			"over %s notifications/progress with the token %s, which no request of the fake carried: %s", t, orNone(token), clip(string(m.Params)))
		reply, answeredAt := answers[fakeservers.ReplyID(key).Key()]
		c.RequireRule("PR-08", !answeredAt || !r.after(t, where, reply), fmt.Sprintf("no progress on the request %s after the client answered it", fakeservers.ReplyID(key)),
			"over %s notifications/progress %s after the answer", t, clip(string(m.Params)))
		if prev, ok := last[token]; ok && r.after(t, where, prev.where) {
			c.RequireRule("PR-03", p.Progress > prev.progress, fmt.Sprintf("the progress of the token %s strictly increasing", token),
				"over %s progress %v after %v", t, p.Progress, prev.progress)
		}
		last[token] = step{p.Progress, where}
	})
	return n
}

// orNone is raw, or "none" when empty.
func orNone(raw string) string {
	if raw == "" {
		return "none"
	}
	return raw
}
