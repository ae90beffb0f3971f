package httpfake

import (
	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The cases of the 2026-07-28 era: input-required round trips (MR-06),
// subscriptions (SB-02, SB-04), a resultType no client knows (JR-16) and
// tool parameters mirrored in headers (HT-78 … HT-80); and output-schema's
// results, of both eras, whose remote $ref is offered in this one alone
// (JR-57).

// askInput is the call hook of the input-required cases.
func askInput(undeclared bool) func(x *exchange, c fakeservers.ToolCall) {
	return func(x *exchange, c fakeservers.ToolCall) { x.reply(fakeservers.AskInput(c, undeclared)) }
}

// acknowledge is the listen hook of the listen cases: an SSE stream whose
// first event is the acknowledgement (honouring nothing when short), then
// held open until the client closes it (recorded as Aborted) or the fake
// closes.
func acknowledge(short bool) func(x *exchange, m *jsonrpc.Message) {
	return func(x *exchange, m *jsonrpc.Message) {
		if x.sse("\n", false).message(x.f.eventID(), fakeservers.Acknowledgement(m, short)) {
			x.hold()
		}
	}
}

// strangeResult is the call hook of result-type-unknown.
func strangeResult(x *exchange, c fakeservers.ToolCall) {
	if c.Name == fakeservers.ToolStrange {
		x.reply(c.WithResultType(fakeservers.ResultTypeUnknown))
		return
	}
	x.reply(c.OK())
}

// outputSchemaResult is the call hook of output-schema.
func outputSchemaResult(x *exchange, c fakeservers.ToolCall) {
	x.reply(fakeservers.OutputSchemaResult(c))
}

// The tools of param-headers.
const (
	// ToolRoute has a parameter of every kind a header mirrors, each
	// annotated with x-mcp-header and fixed by const: a plain string, one
	// beyond ASCII with a trailing space and one that looks encoded (both
	// sent encoded, HT-78), an integer and a boolean (HT-79).
	ToolRoute = "route"
	// ToolBadHeaders annotates two parameters with header names equal but
	// for case: a client leaves it out of its tool list (HT-80).
	ToolBadHeaders = "bad-headers"
)

// RouteArguments are the arguments of ToolRoute, each with the header that
// mirrors it.
var RouteArguments = []struct {
	Name, Header string
	Value        any
}{
	{"region", "Region", "eu-west-1"},
	{"label", "Label", "café ☕ "},
	{"tricky", "Tricky", "=?base64?aGk=?="},
	{"count", "Count", 42},
	{"flag", "Flag", true},
}

// paramSchemas are the input schemas of param-headers' tools.
func paramSchemas() map[string]map[string]any {
	props, required := map[string]any{}, []string{}
	for _, a := range RouteArguments {
		kind := "string"
		switch a.Value.(type) {
		case int:
			kind = "integer"
		case bool:
			kind = "boolean"
		}
		props[a.Name] = map[string]any{"type": kind, "const": a.Value, "x-mcp-header": a.Header}
		required = append(required, a.Name)
	}
	return map[string]map[string]any{
		ToolRoute: {"type": "object", "properties": props, "required": required},
		ToolBadHeaders: {"type": "object", "properties": map[string]any{
			"first":  map[string]any{"type": "string", "x-mcp-header": "Twin"},
			"second": map[string]any{"type": "string", "x-mcp-header": "twin"},
		}},
	}
}
