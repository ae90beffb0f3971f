package httpfake

import (
	"github.com/mcpconform/mcpconform/fakeservers"
)

// invalidRequest is the invalid-request case (fakeservers.InvalidCase): a
// tools/call answered on an SSE stream whose first events are each one of
// fakeservers.InvalidObjects, an answer to each awaited (up to Delay,
// fakeservers.DefaultReplyPatience when 0) before the result.
func invalidRequest(o Options) (*behaviour, error) {
	patience := fakeservers.ReplyPatience(o.Delay)
	var replies fakeservers.Replies
	return &behaviour{
		reply: replies.Arrived,
		call: func(x *exchange, c fakeservers.ToolCall) {
			arrived := make([]<-chan struct{}, len(fakeservers.InvalidObjects))
			for i, obj := range fakeservers.InvalidObjects {
				arrived[i] = replies.Expect(obj.ID)
			}
			s := x.sse("\n", false)
			for _, obj := range fakeservers.InvalidObjects {
				if !(s.line("id: "+x.f.eventID()) && s.line("data: "+obj.Line) && s.end()) {
					return
				}
			}
			if x.awaitAll(arrived, patience) && s.message(x.f.eventID(), c.OK()) {
				x.answered = true
			}
		},
	}, nil
}
