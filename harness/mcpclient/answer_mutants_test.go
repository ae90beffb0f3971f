package mcpclient

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestAnswerMutants observes, for the reference and each mutant of how the
// client answers a server, the rule the mutant breaks in the reply it sends.
func TestAnswerMutants(t *testing.T) {
	ping, _ := jsonrpc.NewRequest(jsonrpc.IntID(7), "ping", nil)
	unknown, _ := jsonrpc.NewRequest(jsonrpc.StringID("u"), "mcpconform/unknown", nil)
	cancel, _ := jsonrpc.NewNotification("notifications/cancelled", map[string]any{"requestId": "gone"})
	for _, m := range []mutant.Name{"", mutant.IDEchoedAsString, mutant.ResultNotObject, mutant.UnknownMethodInternalError,
		mutant.ClientErrorMultiline, mutant.StaleCancelAnswered, mutant.StaleCancelFatal} {
		f := newFakeTransport()
		s := &Session{t: f, opts: Options{Mutant: m}}
		s.answer(ping)
		s.answer(unknown)
		pong, refusal := <-f.sent, <-f.sent
		if (pong.ID.Key() != "7") != (m == mutant.IDEchoedAsString) {
			t.Errorf("mutant %q: the ping 7 answered with id %s (JR-07)", m, pong.ID)
		}
		if (string(pong.Result) != "{}") != (m == mutant.ResultNotObject) {
			t.Errorf("mutant %q: the ping answered with result %s (JR-09)", m, pong.Result)
		}
		if (refusal.Error.Code != jsonrpc.CodeMethodNotFound) != (m == mutant.UnknownMethodInternalError) {
			t.Errorf("mutant %q: an unknown method answered with code %d (JR-22)", m, refusal.Error.Code)
		}
		if (refusal.Error.Message != "Method not found: mcpconform/unknown") != (m == mutant.ClientErrorMultiline) {
			t.Errorf("mutant %q: an unknown method answered with message %q (JR-12)", m, refusal.Error.Message)
		}
		if acted := s.staleCancel(cancel); acted != (m == mutant.StaleCancelAnswered || m == mutant.StaleCancelFatal) {
			t.Errorf("mutant %q: a stale cancellation acted on: %v (CN-07, CN-08)", m, acted)
		}
		if answered := len(f.sent) > 0; answered != (m == mutant.StaleCancelAnswered) {
			t.Errorf("mutant %q: a stale cancellation answered: %v (CN-08)", m, answered)
		}
	}
	for _, m := range []mutant.Name{"", mutant.ModernInputAnswered} {
		f := newFakeTransport()
		(&Session{t: f, opts: Options{Mutant: m}}).answerInputAsResponse("roots", map[string]any{"roots": []any{}})
		if sent := len(f.sent) > 0; sent != (m == mutant.ModernInputAnswered) {
			t.Errorf("mutant %q: an input request answered as a JSON-RPC response: %v (JR-17)", m, sent)
		}
	}
}
