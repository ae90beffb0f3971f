package httpclient

import (
	"bytes"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// AnswerInvalidRequests has the client answer every JSON object the server
// sends from now on in an SSE event (of a POST's stream or the GET stream)
// that is no valid request: with -32600, posted like any reply to a server
// request (JR-21); before, it ignores them. The session calls it once its
// legacy handshake is done (mcpclient.InvalidRequestAnswerer): a 2026-07-28
// client sends no responses (JR-17).
func (c *Client) AnswerInvalidRequests() { c.answersInvalid.Store(true) }

// skipInvalid reports whether event data, which err says is no valid
// message, is one JSON object that is no response: it is answered (once
// AnswerInvalidRequests was called) and the stream goes on. A broken
// response, a broken batch or data that is no object is not skipped: it
// fails the stream's exchange.
func (c *Client) skipInvalid(data []byte, err error) bool {
	if c.cfg.Mutant == mutant.InvalidRequestFatal {
		return false
	}
	reply, ok := jsonrpc.InvalidRequestReply(bytes.TrimSpace(data), err)
	if ok && c.answersInvalid.Load() && c.cfg.Mutant != mutant.InvalidRequestUnanswered {
		_ = c.Send(reply) // Send only queues; it fails once the client is closed, and then nothing is owed
	}
	return ok
}
