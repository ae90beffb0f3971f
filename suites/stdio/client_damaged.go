package stdio

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Damaged lines and JSON that is not a message: NG-01, NG-02. A correct
// client ends the session at once; the call must not wait for its timeout.

func damagedCheck(d check.Descriptor, fakeCase string, shapes []string) bool {
	d.Requirement = "A possibly damaged line that does not parse, or JSON that is neither an object nor a batch, ends the session at once with a protocol failure; it is never skipped."
	return clientCheck(d, func(c *run.C) {
		for _, shape := range shapes {
			r := c.RunStdioClient(stdiofake.Options{Case: fakeCase, Shape: shape}, target.Invocation{})
			wantCallFailedWithin(c, r, c.Options().Prompt, fmt.Sprintf("the server wrote a %s line of shape %s", fakeCase, shape))
		}
	})
}

var _ = damagedCheck(check.Descriptor{
	ID:       "stdio.client.damaged.brace",
	Title:    "a line starting with '{' that does not parse ends the session at once",
	Rules:    []string{"NG-01", "NG-02"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.SkipDamagedBrace, mutant.DamagedFailsLate},
}, "damaged", []string{"brace", "brace-text", "truncated-result", "bad-escape"})

var _ = damagedCheck(check.Descriptor{
	ID:       "stdio.client.damaged.batch",
	Title:    "a line whose '[' opens a batch and does not parse ends the session at once",
	Rules:    []string{"NG-01", "NG-02"},
	KilledBy: []mutant.Name{mutant.SkipDamagedBatch, mutant.DamagedFailsLate},
}, "damaged", []string{"batch", "batch-open"})

var _ = damagedCheck(check.Descriptor{
	ID:       "stdio.client.damaged.jsonrpc-mention",
	Title:    "a non-JSON line that mentions \"jsonrpc\" ends the session at once",
	Rules:    []string{"NG-01", "NG-02"},
	KilledBy: []mutant.Name{mutant.SkipJSONRPCMention, mutant.DamagedFailsLate},
}, "damaged", []string{"jsonrpc"})

var _ = damagedCheck(check.Descriptor{
	ID:       "stdio.client.damaged.non-object",
	Title:    "JSON that is neither an object nor a batch (42, \"x\", null, true, []) ends the session at once",
	Rules:    []string{"NG-02"},
	KilledBy: []mutant.Name{mutant.SkipNonObject},
}, "non-object", stdiofake.NonObjectValues())
