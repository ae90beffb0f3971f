package stdioserver

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// plantedLogFrom is the first request that mutant PlantedStdoutLog logs
// about on stdout.
const plantedLogFrom = 20

// received counts a request read from stdin, in the order read. From the
// 20th on, mutant PlantedStdoutLog writes a log line on stdout before the
// request is handled, so before its response.
func (srv *lineServer) received() {
	srv.requests++
	if srv.cfg.Mutant == mutant.PlantedStdoutLog && srv.requests >= plantedLogFrom {
		_ = srv.w.line(fmt.Appendf(nil, "mcpconform: handled request %d", srv.requests))
	}
}

// reply writes the handler's response to req, if any. Mutant
// PlantedDuplicateReply writes the response to logging/setLevel
// "emergency" twice, as two lines in one write.
//
// Mutant PlantedResponseAfterCancel writes the answers it holds for
// cancelled requests (mcpserver.Server.PlantedHeld) just before resp, in
// the same write.
func (srv *lineServer) reply(req, resp *jsonrpc.Message) {
	if resp == nil {
		return
	}
	if srv.cfg.Mutant == mutant.PlantedDuplicateReply && mcpserver.PlantedDuplicateTrigger(req) {
		srv.w.lines(resp, resp)
		return
	}
	if h, ok := srv.cfg.Handler.(heldAnswers); ok && srv.cfg.Mutant == mutant.PlantedResponseAfterCancel {
		if held := h.PlantedHeld(srv.sess); len(held) > 0 {
			srv.w.lines(append(held, resp)...)
			return
		}
	}
	srv.w.write(resp)
}

// heldAnswers is the reference server's side of mutant
// PlantedResponseAfterCancel.
type heldAnswers interface {
	PlantedHeld(info mcpserver.SessionInfo) []*jsonrpc.Message
}

// lines writes messages as lines in one write.
func (lw *lineWriter) lines(ms ...*jsonrpc.Message) {
	var data []byte
	for i, m := range ms {
		line, err := jsonrpc.Encode(m)
		if err != nil {
			line, _ = jsonrpc.Encode(jsonrpc.NewError(m.ID, jsonrpc.CodeInternalError, "the server could not encode its message"))
		}
		if i > 0 {
			data = append(data, '\n')
		}
		data = append(data, line...)
	}
	_ = lw.line(data)
}
