package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestProgress observes the client's progress on a server request that
// carries a token: the reference sends it strictly increasing before its
// reply, mutant ClientProgressAfterResponse its last step after it
// (PR-08); none for a request without a token or one it does not work on;
// each tool call carries a token of its own (PR-01).
func TestProgress(t *testing.T) {
	req, _ := jsonrpc.NewRequest(jsonrpc.StringID("s"), "sampling/createMessage", map[string]any{"_meta": map[string]any{"progressToken": "tok"}})
	plain, _ := jsonrpc.NewRequest(jsonrpc.StringID("p"), "sampling/createMessage", map[string]any{})
	for _, m := range []mutant.Name{"", mutant.ClientProgressAfterResponse} {
		f := newFakeTransport()
		s := &Session{t: f, opts: Options{Mutant: m}}
		late := s.progress(req, true)
		before := len(f.sent)
		late()
		if (before == progressSteps) != (m == "") || len(f.sent) != progressSteps {
			t.Errorf("mutant %q: %d notifications before the reply, %d in all; want %d before (PR-08)", m, before, len(f.sent), progressSteps)
		}
		last := -1.0
		for range len(f.sent) {
			n := <-f.sent
			var p struct {
				Token    string  `json:"progressToken"`
				Progress float64 `json:"progress"`
			}
			if json.Unmarshal(n.Params, &p) != nil || n.Method != "notifications/progress" || p.Token != "tok" || p.Progress <= last {
				t.Errorf("mutant %q: %s %s; want progress on tok, strictly increasing (PR-03, PR-06)", m, n.Method, n.Params)
			}
			last = p.Progress
		}
		s.progress(plain, true)()
		s.progress(req, false)()
		if len(f.sent) != 0 {
			t.Errorf("mutant %q: progress on a request without a token or not worked on", m)
		}
	}
	s := &Session{}
	if a, b := s.progressMeta().ProgressToken, s.progressMeta().ProgressToken; a == b {
		t.Errorf("two tool calls share the progress token %q (PR-01)", a)
	}
}
