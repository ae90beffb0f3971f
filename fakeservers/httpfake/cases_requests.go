package httpfake

import (
	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// clientRequests is the client-requests case (fakeservers.ClientRequests):
// it learns what the client declared from its initialize and, on a
// tools/call of ask, asks for it: in the legacy era on the call's SSE
// stream, after a notification no client knows, each request awaited (up
// to Delay) before its After notifications and the next, then the result; in 2026-07-28 as one input
// round.
func clientRequests(o Options) (*behaviour, error) {
	var a fakeservers.Asker
	return &behaviour{
		tools:      []string{fakeservers.ToolAsk},
		initialize: func(_ *exchange, m *jsonrpc.Message) bool { a.Seen(m); return true },
		reply:      a.Seen,
		call: func(x *exchange, c fakeservers.ToolCall) {
			if c.Modern {
				x.reply(fakeservers.AskClient(c))
				return
			}
			s := x.sse("\n", false)
			if !s.message(x.f.eventID(), fakeservers.UnknownNotification()) {
				return
			}
			for _, r := range a.Requests() {
				m := r.Message()
				arrived := a.Replies.Expect(m.ID)
				if !s.message(x.f.eventID(), m) || x.wait(arrived, o.Delay) == waitGone {
					return
				}
				for _, n := range r.After {
					if !s.message(x.f.eventID(), n) {
						return
					}
				}
			}
			if s.message(x.f.eventID(), c.OK()) {
				x.answered = true
			}
		},
	}, nil
}
