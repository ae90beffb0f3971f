// Package jsonrpc is the JSON-RPC 2.0 wire core of mcpconform: the message
// model (requests, notifications, results, errors), request ids that keep
// their JSON type, a strict decoder, the standard error codes, and the stdio
// line classifier of rules NG-01 and NG-02.
//
// See JR-01 … JR-37 in the requirements digest and NG-01/NG-02 in SEMANTICS.md.
package jsonrpc
