package stdiofake

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
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
		received: func(_ *server, m *jsonrpc.Message) {
			if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
				replies.Arrived(m)
			}
		},
		call: func(s *server, c fakeservers.ToolCall) {
			var arrived []<-chan struct{}
			for _, id := range fakeservers.BatchPingIDs {
				arrived = append(arrived, replies.Expect(id))
			}
			s.stdout.group(func(w *lineWriter) { w.line(string(fakeservers.EncodeBatch(fakeservers.BatchToClient()))) })
			t := time.NewTimer(patience)
			defer t.Stop()
		awaiting:
			for i, ch := range arrived {
				select {
				case <-ch:
				case <-t.C:
					s.rec.Note(fmt.Sprintf("no response to the ping %s of the batch within %s", fakeservers.BatchPingIDs[i], patience))
					break awaiting
				case <-s.ctx.Done():
					return
				}
			}
			s.respond(c.OK())
		},
	}, nil
}
