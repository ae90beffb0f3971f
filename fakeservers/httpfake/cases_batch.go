package httpfake

import (
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// batch is the batch case (fakeservers.BatchCase): initialize answered
// with 2025-03-26, and a tools/call answered on an SSE stream whose first
// event is one batch of a notification and two pings, both answers awaited
// (up to Delay, fakeservers.DefaultReplyPatience when 0) before the result.
func batch(o Options) (*behaviour, error) {
	patience := fakeservers.ReplyPatience(o.Delay)
	var replies fakeservers.Replies
	return &behaviour{
		initVersion: fakeservers.BatchVersion,
		reply:       replies.Arrived,
		call: func(x *exchange, c fakeservers.ToolCall) {
			var arrived []<-chan struct{}
			for _, id := range fakeservers.BatchPingIDs {
				arrived = append(arrived, replies.Expect(id))
			}
			s := x.sse("\n", false)
			if !s.batch(x.f.eventID(), fakeservers.BatchToClient()) {
				return
			}
			if x.awaitAll(arrived, patience) && s.message(x.f.eventID(), c.OK()) {
				x.answered = true
			}
		},
	}, nil
}

// batch writes msgs as one event whose data is a JSON array (2025-03-26):
//
//	id: <id>
//	data: [<msgs as one line of JSON>]
//	(blank line)
func (s *sseWriter) batch(id string, msgs []*jsonrpc.Message) bool {
	return s.line("id: "+id) && s.line("data: "+string(fakeservers.EncodeBatch(msgs))) && s.end()
}

// awaitAll waits until each of arrived is closed, all within patience,
// and then no longer. It reports false when the fake is ending.
func (x *exchange) awaitAll(arrived []<-chan struct{}, patience time.Duration) bool {
	deadline := time.Now().Add(patience)
	for _, ch := range arrived {
		switch x.wait(ch, max(time.Until(deadline), time.Nanosecond)) {
		case waitGone:
			return false
		case waitTimeout:
			return true // the rest are not awaited either
		}
	}
	return true
}
