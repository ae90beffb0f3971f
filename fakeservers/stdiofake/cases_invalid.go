package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
)

// invalidRequest is the invalid-request case (fakeservers.InvalidCase): on
// a tools/call each of fakeservers.InvalidObjects as a line of its own, an
// answer to each awaited up to --delay (default
// fakeservers.DefaultReplyPatience), then the result.
func invalidRequest(o Options) (*behaviour, error) {
	patience, err := replyPatience(o)
	if err != nil {
		return nil, err
	}
	var replies fakeservers.Replies
	return &behaviour{
		received: responsesTo(&replies),
		call: func(s *server, c fakeservers.ToolCall) {
			arrived := make([]<-chan struct{}, len(fakeservers.InvalidObjects))
			for i, obj := range fakeservers.InvalidObjects {
				arrived[i] = replies.Expect(obj.ID)
			}
			s.stdout.group(func(w *lineWriter) {
				for _, obj := range fakeservers.InvalidObjects {
					w.line(obj.Line)
				}
			})
			if s.awaitAnswers(arrived, patience, func(i int) string {
				return fmt.Sprintf("no answer with id %s to the invalid request %s within %s", fakeservers.InvalidObjects[i].ID, fakeservers.InvalidObjects[i].Line, patience)
			}) {
				s.respond(c.OK())
			}
		},
	}, nil
}
