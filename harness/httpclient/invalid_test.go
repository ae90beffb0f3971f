package httpclient

import (
	"errors"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestInvalidRequestEventAnswered: an SSE event whose data is one object
// that is no valid request is skipped and, once AnswerInvalidRequests was
// called, answered with -32600 on the control queue (JR-21); a broken
// response is not skipped. Mutant InvalidRequestUnanswered answers
// nothing, InvalidRequestFatal skips nothing.
func TestInvalidRequestEventAnswered(t *testing.T) {
	data := []byte(` {"jsonrpc":"2.0","id":{"x":1},"method":"ping"}` + "\n")
	broken := []byte(`{"jsonrpc":"1.0","id":1,"result":{}}`)
	for _, tc := range []struct {
		m        mutant.Name
		told     bool
		skipped  bool
		answered bool
	}{
		{"", true, true, true},
		{"", false, true, false},
		{mutant.InvalidRequestUnanswered, true, true, false},
		{mutant.InvalidRequestFatal, true, false, false},
	} {
		c := &Client{cfg: Config{Mutant: tc.m}, control: newQueue(), ordinary: newQueue()}
		if tc.told {
			c.AnswerInvalidRequests()
		}
		if got := c.skipInvalid(data, errors.New("bad id")); got != tc.skipped {
			t.Errorf("mutant %q, told %v: skipped %v, want %v", tc.m, tc.told, got, tc.skipped)
		}
		o := c.control.take(false)
		got := o != nil && o.msgs[0].Error != nil && o.msgs[0].Error.Code == jsonrpc.CodeInvalidRequest && o.msgs[0].ID.IsZero()
		if got != tc.answered {
			t.Errorf("mutant %q, told %v: posted %v, want -32600 with a null id: %v", tc.m, tc.told, o, tc.answered)
		}
		if c.skipInvalid(broken, errors.New("bad version")) {
			t.Errorf("mutant %q: a broken response was skipped", tc.m)
		}
	}
}
