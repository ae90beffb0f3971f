package httpclient

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestBatchMutantBodies: the reference posts initialize and its replies as
// one object each (JR-36, HT-12); InitializeBatched puts initialize in a
// batch of one, ReplyBatchMixed a reply in a batch with a notification.
func TestBatchMutantBodies(t *testing.T) {
	init, err := jsonrpc.NewRequest(jsonrpc.IntID(1), "initialize", map[string]any{"protocolVersion": "2025-03-26"})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := jsonrpc.NewResult(jsonrpc.StringID("srv-1"), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m       mutant.Name
		batched *jsonrpc.Message // the message the mutant batches; nil: none
	}{{"", nil}, {mutant.InitializeBatched, init}, {mutant.ReplyBatchMixed, reply}} {
		c := &Client{cfg: Config{Mutant: tc.m}}
		for _, msg := range []*jsonrpc.Message{init, reply} {
			body, err := jsonrpc.Encode(msg)
			if err != nil {
				t.Fatal(err)
			}
			got := string(c.batchMutated(msg, body))
			if batched := strings.HasPrefix(got, "["); batched != (msg == tc.batched) {
				t.Errorf("mutant %q: %s posted as %s", tc.m, msg.Kind(), got)
			}
		}
	}
}
