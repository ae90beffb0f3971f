package jsonrpc

import (
	"encoding/json"
	"fmt"
)

// InvalidRequestReply is the answer to b, a JSON object that Decode
// refused with err, when b is no response: error -32600 (Invalid Request)
// carrying b's id when it is a string or an integer, else a null id (JR-21,
// JSON-RPC 2.0 §5). ok is false when b is not a JSON object, or when it has
// "result" or "error" and no "method": a broken response, which is never
// answered (JR-14), so its receiver decides alone what it means.
func InvalidRequestReply(b []byte, err error) (reply *Message, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil || fields == nil {
		return nil, false
	}
	_, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if !hasMethod && (hasResult || hasError) {
		return nil, false
	}
	id, idErr := parseID(fields["id"])
	if idErr != nil {
		id = ID{}
	}
	return NewError(id, CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err)), true
}
