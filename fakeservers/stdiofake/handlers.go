package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// request answers every request but tools/call.
func (s *server) request(m *jsonrpc.Message) {
	switch m.Method {
	case "initialize":
		s.initialize(m)
	case "ping":
		s.respond(fakeservers.ResultMessage(m.ID, struct{}{}))
	case "tools/list":
		s.respond(fakeservers.ResultMessage(m.ID, fakeservers.ToolList(s.b.tools)))
	default: // server/discover included
		s.respond(jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "Method not found"))
	}
}

// initialize answers with the proposed version when the fake speaks it, after
// the case's delay (in the background: the fake reads on meanwhile).
func (s *server) initialize(m *jsonrpc.Message) {
	reply := fakeservers.InitializeReply(m)
	if s.b.initDelay <= 0 {
		s.respond(reply)
		return
	}
	go func() {
		if s.sleep(s.b.initDelay) {
			s.respond(reply)
		}
	}()
}

// call handles a tools/call through the case's hook, or answers ok.
func (s *server) call(c fakeservers.ToolCall) {
	if s.b.call != nil {
		s.b.call(s, c)
		return
	}
	s.respond(c.OK())
}

// leaveUnanswered is the call hook of the never-answers cases.
func leaveUnanswered(s *server, c fakeservers.ToolCall) {
	s.rec.Note(fmt.Sprintf("left tools/call %s unanswered", c.Req.ID))
}
