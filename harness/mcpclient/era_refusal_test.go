package mcpclient

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// TestRefusalUnexplainedMutant: told the legacy era, the client meets a
// modern-only server, which refuses initialize with -32022 naming the
// versions it serves (LC-48); the reference's failure says so, so its user
// learns what the server speaks (LC-43), while mutant RefusalUnexplained's
// says only that the handshake failed.
func TestRefusalUnexplainedMutant(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.RefusalUnexplained} {
		synctest.Test(t, func(t *testing.T) {
			f := newFakeTransport()
			res := connectFailing(f, Options{Era: EraLegacy, Mutant: m})
			init := f.expect(t, "initialize")
			f.deliver(t, &jsonrpc.Message{ID: init.ID, Error: mcp.UnsupportedVersion("2025-11-25", mcp.ModernProtocolVersions)})
			err := <-res
			wantKind(t, err, failure.ErrProtocol)
			if named := strings.Contains(err.Error(), mcp.ModernVersion); named != (m == "") {
				t.Errorf("mutant %q: the failure %q names %s: %v; want it named by the reference only", m, err, mcp.ModernVersion, named)
			}
		})
	}
}
