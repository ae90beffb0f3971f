package mcpclient

import (
	"context"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// The reference client's initialize validates against the schema of the
// version it proposes; mutant InitializeWithoutCapabilities' does not.
func TestInitializeRequestIsSchemaValid(t *testing.T) {
	for _, tc := range []struct {
		m     mutant.Name
		valid bool
	}{{"", true}, {mutant.InitializeWithoutCapabilities, false}} {
		f := newFakeTransport()
		go func() { _, _ = Connect(context.Background(), f, Options{Era: EraLegacy, Mutant: tc.m}) }()
		init := f.expect(t, "initialize")
		raw, err := jsonrpc.Encode(init)
		if err != nil {
			t.Fatal(err)
		}
		v, err := wireschema.Validate(mcp.LegacyProtocolVersions[0], raw, "")
		if err != nil {
			t.Fatal(err)
		}
		if (v == nil) != tc.valid {
			t.Errorf("mutant %q: initialize %s: violation %v; want valid %v", tc.m, raw, v, tc.valid)
		}
		_ = f.Close()
	}
}
