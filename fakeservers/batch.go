package fakeservers

import (
	"bytes"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The batch case: a server of 2025-03-26, the one version with JSON-RPC
// batches, which answers initialize with that version whatever the client
// proposes (a server may answer with an older version it supports) and, on
// a tools/call, sends the client one batch of a notification and two pings
// before its result. A client that goes on in 2025-03-26 accepts the batch
// and answers each ping (JR-35).

// BatchVersion is the version the batch case answers initialize with.
const BatchVersion = "2025-03-26"

// BatchCase describes the batch case of both fakes.
const BatchCase = "legacy: answers initialize with protocolVersion " + BatchVersion + " whatever the client proposes; its tools/call sends the client one batch " +
	"(over HTTP one SSE event) of a notification of a method MCP does not define and the pings srv-batch-1 and srv-batch-2, awaits both answers (up to the fake's delay), then the result; " +
	"it reads a client's batches message by message"

// BatchPingIDs are the ids of the pings of the batch case's batch.
var BatchPingIDs = []jsonrpc.ID{jsonrpc.StringID("srv-batch-1"), jsonrpc.StringID("srv-batch-2")}

// BatchToClient is the batch the case sends on a tools/call: the
// notification of MethodUnknown, then a ping of each of BatchPingIDs.
func BatchToClient() []*jsonrpc.Message {
	out := []*jsonrpc.Message{UnknownNotification()}
	for _, id := range BatchPingIDs {
		m, err := jsonrpc.NewRequest(id, "ping", nil)
		if err != nil {
			panic("fakeservers: build ping: " + err.Error()) // a string id and no params always encode
		}
		out = append(out, m)
	}
	return out
}

// EncodeBatch is msgs as one JSON array.
func EncodeBatch(msgs []*jsonrpc.Message) []byte {
	parts := make([][]byte, len(msgs))
	for i, m := range msgs {
		parts[i] = Encode(m)
	}
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

// DecodeFrame is what one line or body holds: a JSON-RPC message, or the
// messages of a batch; nil when it is neither.
func DecodeFrame(b []byte) []*jsonrpc.Message {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		msgs, err := jsonrpc.DecodeBatch(b)
		if err != nil {
			return nil
		}
		return msgs
	}
	m, err := jsonrpc.Decode(b)
	if err != nil {
		return nil
	}
	return []*jsonrpc.Message{m}
}
