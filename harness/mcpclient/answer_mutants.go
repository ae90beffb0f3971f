package mcpclient

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The branches of the mutants of how the reference client answers what a
// server sends it (harness/mutant's clientAnswers); the reference takes
// none of them.

// mutatedReply is reply, the answer to req, as the active mutant changes
// it: an integer id echoed as a string (IDEchoedAsString), a ping's result
// a string (ResultNotObject), method-not-found reported as an internal
// error (UnknownMethodInternalError), an error message with a stack frame
// (ClientErrorMultiline).
func (s *Session) mutatedReply(req, reply *jsonrpc.Message) *jsonrpc.Message {
	switch {
	case s.opts.Mutant == mutant.IDEchoedAsString && !reply.ID.IsString():
		reply.ID = jsonrpc.StringID(reply.ID.String())
	case s.opts.Mutant == mutant.ResultNotObject && req.Method == "ping" && reply.Error == nil:
		reply.Result = json.RawMessage(`"pong"`)
	case s.opts.Mutant == mutant.UnknownMethodInternalError && reply.Error != nil && reply.Error.Code == jsonrpc.CodeMethodNotFound:
		reply.Error.Code = jsonrpc.CodeInternalError
	case s.opts.Mutant == mutant.ClientErrorMultiline && reply.Error != nil:
		reply.Error.Message += "\n\tat mcpclient.(*Session).answer (dispatch.go)"
	}
	return reply
}

// staleCancel acts on notifications/cancelled m as mutants StaleCancelAnswered
// (an error under the id it names) and StaleCancelFatal (the session ended)
// do, and reports whether it did; the client answers every request at once,
// so any cancellation it receives names a request it is not handling.
func (s *Session) staleCancel(m *jsonrpc.Message) bool {
	if m.Method != "notifications/cancelled" || (s.opts.Mutant != mutant.StaleCancelAnswered && s.opts.Mutant != mutant.StaleCancelFatal) {
		return false
	}
	if s.opts.Mutant == mutant.StaleCancelFatal {
		_ = s.t.Close() // dispatch learns that the session ended from Done
		return true
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	_ = json.Unmarshal(m.Params, &p) // unreadable: an error with a null id
	_ = s.t.Send(jsonrpc.NewError(p.RequestID, jsonrpc.CodeInvalidParams, "no request in progress has the id the cancellation names"))
	return true
}

// answerInputAsResponse is mutant ModernInputAnswered's JSON-RPC response
// to the input request of key, answered with res.
func (s *Session) answerInputAsResponse(key string, res any) {
	if s.opts.Mutant != mutant.ModernInputAnswered {
		return
	}
	if m, err := jsonrpc.NewResult(jsonrpc.StringID(key), res); err == nil {
		_ = s.t.Send(m) // a failed send: the retry that follows learns it
	}
}
