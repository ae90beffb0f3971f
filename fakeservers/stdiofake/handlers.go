package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// request answers every request but a tools/call the era admitted, in the
// era a says: the handshake's reply (initialize in the legacy era,
// server/discover in the modern one) after the case's delay, the rest at
// once (a refusal included).
func (s *server) request(m *jsonrpc.Message, a fakeservers.Admission) {
	switch {
	case a.Refusal == nil && !a.Modern && m.Method == fakeservers.MethodInitialize:
		s.opening(fakeservers.InitializeReplyIn(m, s.b.initVersion))
	case a.Refusal == nil && a.Modern && m.Method == mcp.MethodDiscover:
		s.opening(s.offer().DiscoverReply(m))
	case a.Refusal == nil && a.Modern && m.Method == fakeservers.MethodListen && s.b.listen != nil:
		s.b.listen(s, m)
	default:
		s.respond(s.offer().Base(m, a))
	}
}

// offer is what the fake offers: the case's tools and capabilities.
func (s *server) offer() fakeservers.Offer {
	return fakeservers.Offer{Tools: s.b.tools, OutputSchemas: s.b.outputSchemas, Descriptions: s.b.descriptions, Annotations: s.b.annotations,
		Capabilities: s.b.capabilities, Paged: s.b.paged}
}

// opening answers the handshake's request with reply after the case's
// delay (in the background: the fake reads on meanwhile).
func (s *server) opening(reply *jsonrpc.Message) {
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
