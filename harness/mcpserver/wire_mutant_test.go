package mcpserver

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

func init() {
	serverRuleOf[mutant.ToolWithoutInputSchema] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("tools/list", "{}")
		raw, err := jsonrpc.Encode(resp)
		if err != nil {
			t.Fatal(err)
		}
		v, err := wireschema.Validate("2025-11-25", raw, "tools/list")
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return false, "a tools/list result the schema accepts"
		}
		return true, v.Error()
	}
}
