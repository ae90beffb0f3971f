package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
)

// batch is the batch case (fakeservers.BatchCase): initialize answered
// with 2025-03-26, and on a tools/call one batch line of a notification
// and two pings, both answers awaited up to --delay (default
// fakeservers.DefaultReplyPatience) before the result.
func batch(o Options) (*behaviour, error) {
	patience, err := replyPatience(o)
	if err != nil {
		return nil, err
	}
	var replies fakeservers.Replies
	return &behaviour{
		initVersion: fakeservers.BatchVersion,
		received:    responsesTo(&replies),
		call: func(s *server, c fakeservers.ToolCall) {
			var arrived []<-chan struct{}
			for _, id := range fakeservers.BatchPingIDs {
				arrived = append(arrived, replies.Expect(id))
			}
			s.stdout.group(func(w *lineWriter) { w.line(string(fakeservers.EncodeBatch(fakeservers.BatchToClient()))) })
			if s.awaitAnswers(arrived, patience, func(i int) string {
				return fmt.Sprintf("no response to the ping %s of the batch within %s", fakeservers.BatchPingIDs[i], patience)
			}) {
				s.respond(c.OK())
			}
		},
	}, nil
}
