package fakeservers

import "github.com/mcpconform/mcpconform/harness/jsonrpc"

// The invalid-request case: a legacy server that, on a tools/call, sends
// the client JSON objects that are no valid request, one of each flaw
// JSON-RPC 2.0 names (JR-21), and awaits the client's answer to each before
// its result. A client answers each with -32600, carrying the object's id
// when it can read one, else null, and goes on.

// InvalidCase describes the invalid-request case of both fakes.
const InvalidCase = "legacy: on a tools/call sends the client JSON objects that are no valid request (jsonrpc \"1.0\"; neither method nor result nor error; " +
	"an id that is an object), each its own line (over HTTP its own SSE event of the call's stream), awaits an answer to each (up to the fake's delay), then the result"

// InvalidObject is one object of the invalid-request case.
type InvalidObject struct {
	// Line is the object as the fake sends it.
	Line string
	// Flaw says what makes it no valid request.
	Flaw string
	// ID is the id of the -32600 answer: the object's own, or null (the
	// zero ID) when the object's id cannot be read.
	ID jsonrpc.ID
}

// InvalidObjects are the objects the invalid-request case sends, in order.
var InvalidObjects = []InvalidObject{
	{`{"jsonrpc":"1.0","id":"srv-invalid-1","method":"ping"}`, `"jsonrpc" is "1.0", not "2.0"`, jsonrpc.StringID("srv-invalid-1")},
	{`{"jsonrpc":"2.0","id":"srv-invalid-2"}`, "it has neither method nor result nor error", jsonrpc.StringID("srv-invalid-2")},
	{`{"jsonrpc":"2.0","id":{"srv":"invalid-3"},"method":"ping"}`, "its id is an object, neither a string nor a number", jsonrpc.ID{}},
}
