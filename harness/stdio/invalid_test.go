package stdio

import (
	"io"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestInvalidRequestAnswered: a JSON object that is no valid request is
// answered with -32600 and the session goes on (JR-21); a broken response
// still ends it. Mutant InvalidRequestUnanswered answers nothing,
// InvalidRequestFatal ends the session.
func TestInvalidRequestAnswered(t *testing.T) {
	line := []byte(`{"jsonrpc":"1.0","id":"bad","method":"ping"}`)
	for _, tt := range []struct {
		m        mutant.Name
		answered bool
		fail     bool
	}{
		{"", true, false},
		{mutant.InvalidRequestUnanswered, false, false},
		{mutant.InvalidRequestFatal, false, true},
	} {
		var sent []*jsonrpc.Message
		h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard), mutant: tt.m, answer: func(m *jsonrpc.Message) { sent = append(sent, m) }}
		msgs, f := h.handle(line, true)
		if (f != nil) != tt.fail || len(msgs) != 0 {
			t.Errorf("mutant %q: messages %v, failure %v; want none, failure %v", tt.m, msgs, f, tt.fail)
		}
		if got := len(sent) == 1 && sent[0].Error != nil && sent[0].Error.Code == jsonrpc.CodeInvalidRequest && sent[0].ID.String() == `"bad"`; got != tt.answered {
			t.Errorf("mutant %q: sent %v; want -32600 with id \"bad\": %v", tt.m, sent, tt.answered)
		}
		if _, f := h.handle([]byte(`{"jsonrpc":"1.0","id":1,"result":{}}`), true); f == nil {
			t.Errorf("mutant %q: a broken response did not end the session", tt.m)
		}
	}
}
