package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The cases of the 2026-07-28 era: input-required round trips (MR-06),
// subscriptions (SB-02, SB-04) and a resultType no client knows (JR-16);
// and output-schema's results, of both eras, whose remote $ref is offered
// in this one alone (JR-57).

// askInput is the call hook of the input-required cases.
func askInput(undeclared bool) func(s *server, c fakeservers.ToolCall) {
	return func(s *server, c fakeservers.ToolCall) { s.respond(fakeservers.AskInput(c, undeclared)) }
}

// acknowledge is the listen hook of the listen cases: the acknowledgement
// (honouring nothing when short), then the subscription held open, its
// request unanswered, until the client cancels it or closes stdin.
func acknowledge(short bool) func(s *server, m *jsonrpc.Message) {
	return func(s *server, m *jsonrpc.Message) {
		s.stdout.group(func(w *lineWriter) { w.message(fakeservers.Acknowledgement(m, short)) })
		s.rec.Note(fmt.Sprintf("holding subscription %s open", m.ID))
	}
}

// strangeResult is the call hook of result-type-unknown.
func strangeResult(s *server, c fakeservers.ToolCall) {
	if c.Name == fakeservers.ToolStrange {
		s.respond(c.WithResultType(fakeservers.ResultTypeUnknown))
		return
	}
	s.respond(c.OK())
}

// outputSchemaResult is the call hook of output-schema.
func outputSchemaResult(s *server, c fakeservers.ToolCall) {
	s.respond(fakeservers.OutputSchemaResult(c))
}
