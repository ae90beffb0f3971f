package stdio

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestBatchLine: a batch line of 2025-03-26 delivers each of its messages
// (JR-35); mutant BatchDropped delivers none of them.
func TestBatchLine(t *testing.T) {
	line := []byte(`[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	for _, m := range []mutant.Name{"", mutant.BatchDropped} {
		h := &lineHandler{budget: newTextBudget(DefaultConfig(), io.Discard), mutant: m}
		msgs, f := h.handle(line, true)
		if f != nil {
			t.Fatalf("mutant %q: handle(batch) = %v", m, f)
		}
		if want := map[mutant.Name]int{"": 3}[m]; len(msgs) != want {
			t.Errorf("mutant %q: the batch line delivered %d messages; want %d", m, len(msgs), want)
		}
	}
}

// TestInitializeNeverBatched: initialize goes out as one object (JR-36);
// mutant InitializeBatched puts it in a batch of one.
func TestInitializeNeverBatched(t *testing.T) {
	init, err := jsonrpc.NewRequest(jsonrpc.IntID(1), "initialize", map[string]any{"protocolVersion": "2025-03-26"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []mutant.Name{"", mutant.InitializeBatched} {
		c := &Client{cfg: Config{Mutant: m}}
		line, err := c.encode(init)
		if err != nil {
			t.Fatal(err)
		}
		if batched := strings.HasPrefix(string(line), "["); batched != (m != "") {
			t.Errorf("mutant %q: initialize encoded as %s", m, line)
		}
	}
}
