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
func (srv *lineServer) reply(req, resp *jsonrpc.Message) {
	if resp == nil {
		return
	}
	if srv.cfg.Mutant == mutant.PlantedDuplicateReply && mcpserver.PlantedDuplicateTrigger(req) {
		srv.w.twice(resp)
		return
	}
	srv.w.write(resp)
}

// twice writes one message as two identical lines in one write.
func (lw *lineWriter) twice(m *jsonrpc.Message) {
	data, err := jsonrpc.Encode(m)
	if err != nil {
		data, _ = jsonrpc.Encode(jsonrpc.NewError(m.ID, jsonrpc.CodeInternalError, "the server could not encode its message"))
	}
	_ = lw.line(append(append(data, '\n'), data...))
}
