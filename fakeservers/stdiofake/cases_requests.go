package stdiofake

import (
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// clientRequests is the client-requests case (fakeservers.ClientRequests):
// it learns what the client declared from its initialize and, on a
// tools/call of ask, sends a notification no client knows and asks for it
// (each request's After notifications sent once it is answered),
// each request awaited up to --delay (default
// fakeservers.DefaultReplyPatience).
func clientRequests(o Options) (*behaviour, error) {
	patience, err := replyPatience(o)
	if err != nil {
		return nil, err
	}
	var a fakeservers.Asker
	return &behaviour{
		tools:    []string{fakeservers.ToolAsk},
		received: func(_ *server, m *jsonrpc.Message) { a.Seen(m) },
		call: func(s *server, c fakeservers.ToolCall) {
			if c.Modern {
				s.respond(fakeservers.AskClient(c))
				return
			}
			s.stdout.group(func(w *lineWriter) { w.message(fakeservers.UnknownNotification()) })
			for _, r := range a.Requests() {
				if !s.ask(r.Message(), &a.Replies, patience) {
					return
				}
				s.stdout.group(func(w *lineWriter) {
					for _, n := range r.After {
						w.message(n)
					}
				})
			}
			s.respond(c.OK())
		},
	}, nil
}

// ask sends request m to the client and waits up to patience for its
// response (noting when none came); false when the fake is ending.
func (s *server) ask(m *jsonrpc.Message, replies *fakeservers.Replies, patience time.Duration) bool {
	arrived := replies.Expect(m.ID)
	s.stdout.group(func(w *lineWriter) { w.message(m) })
	t := time.NewTimer(patience)
	defer t.Stop()
	select {
	case <-arrived:
		return true
	case <-t.C:
		s.rec.Note(fmt.Sprintf("no response to %s %s within %s", m.Method, m.ID, patience))
		return true
	case <-s.ctx.Done():
		return false
	}
}

// replyPatience is how long a case waits for each answer of the client:
// --delay, or fakeservers.DefaultReplyPatience when it is not set.
func replyPatience(o Options) (time.Duration, error) {
	if o.Delay < 0 {
		return 0, fmt.Errorf("--delay must not be negative, got %v", o.Delay)
	}
	return fakeservers.ReplyPatience(o.Delay), nil
}

// awaitAnswers waits until each of arrived is closed, all within patience;
// the first that is not, it notes in the record (missing(i)) and awaits no
// more. It reports false when the fake is ending.
func (s *server) awaitAnswers(arrived []<-chan struct{}, patience time.Duration, missing func(i int) string) bool {
	t := time.NewTimer(patience)
	defer t.Stop()
	for i, ch := range arrived {
		select {
		case <-ch:
		case <-t.C:
			s.rec.Note(missing(i))
			return true
		case <-s.ctx.Done():
			return false
		}
	}
	return true
}

// responsesTo is a received hook that hands every response the client
// sends to replies.
func responsesTo(replies *fakeservers.Replies) func(*server, *jsonrpc.Message) {
	return func(_ *server, m *jsonrpc.Message) {
		if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
			replies.Arrived(m)
		}
	}
}
