package httpclient

import (
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// ackNotification is what mutant ReplyBatchMixed posts beside each reply: a
// notification of a method MCP does not define.
const ackNotification = `{"jsonrpc":"2.0","method":"notifications/mcpconform/ack"}`

// batchMutated is the POST body of m, encoded as body, under the batch
// mutants: initialize inside a batch of one (InitializeBatched, JR-36), a
// reply in one batch with a notification (ReplyBatchMixed, HT-12); body as
// it is otherwise.
func (c *Client) batchMutated(m *jsonrpc.Message, body []byte) []byte {
	switch k := m.Kind(); {
	case c.cfg.Mutant == mutant.InitializeBatched && k == jsonrpc.KindRequest && m.Method == "initialize":
		return append(append([]byte{'['}, body...), ']')
	case c.cfg.Mutant == mutant.ReplyBatchMixed && (k == jsonrpc.KindResult || k == jsonrpc.KindError):
		return append(append(append([]byte{'['}, body...), ","+ackNotification...), ']')
	}
	return body
}
