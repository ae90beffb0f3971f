package fakeservers

import "github.com/mcpconform/mcpconform/harness/jsonrpc"

// LateAnswer is the answer the cancel-then-echo fakes give a call the
// client cancelled, after its notifications/cancelled: an error (a client
// that took it for another call's answer fails that call), which a client
// ignores (CN-06).
func LateAnswer(id jsonrpc.ID) *jsonrpc.Message {
	return jsonrpc.NewError(id, jsonrpc.CodeInternalError, "mcpconform: the late answer to a request the client cancelled")
}
