package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

func init() {
	serverRuleOf[mutant.ResourceBlobNotBase64] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var r struct {
			Contents []struct {
				Blob string `json:"blob"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(p.call("resources/read", `{"uri":"test://static-binary"}`).Result, &r); err != nil || len(r.Contents) != 1 {
			t.Fatalf("resources/read of the binary resource: %v, %d contents", err, len(r.Contents))
		}
		if _, err := base64.StdEncoding.DecodeString(r.Contents[0].Blob); err != nil {
			return true, "the blob " + r.Contents[0].Blob
		}
		return false, "a base64 blob"
	}
	serverRuleOf[mutant.UnknownResourceContents] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		if resp := p.call("resources/read", `{"uri":"test://mcpconform-no-such-resource"}`); resp.Error == nil {
			return true, "a result: " + string(resp.Result)
		}
		return false, "an error"
	}
	serverRuleOf[mutant.NotFoundLegacyCode] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		resp := p.call("resources/read", modernParams(mcp.ModernVersion, `"uri":"test://mcpconform-no-such-resource"`))
		if resp.Error != nil && resp.Error.Code == jsonrpc.CodeResourceNotFound {
			return true, "error -32002 in 2026-07-28"
		}
		return false, "no -32002 in 2026-07-28"
	}
}
