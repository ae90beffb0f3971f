package server

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestEraEvidence(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"supportedVersions":["2026-07-28","2025-11-25"]}`: true,
		`{"supportedVersions":["2027-01-01"]}`:              true,
		`{"supportedVersions":["2025-11-25","2025-06-18"]}`: false, // an answer for dual-era probes only
		`{"capabilities":{}}`:                               true,  // unreadable: the checks judge it
		`{"supportedVersions":[]}`:                          true,
	} {
		versions, named := supportedVersions([]byte(raw), "supportedVersions")
		if got := !named || servesModern(versions); got != want {
			t.Errorf("%s: modern %v, want %v", raw, got, want)
		}
	}
	for _, tc := range []struct {
		err  jsonrpc.Error
		want bool
	}{
		{jsonrpc.Error{Code: jsonrpc.CodeUnsupportedProtocolVersion, Data: []byte(`{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}, true},
		{jsonrpc.Error{Code: jsonrpc.CodeUnsupportedProtocolVersion}, true},
		{jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Data: []byte(`{"supported":["2026-07-28"]}`)}, true},
		{jsonrpc.Error{Code: jsonrpc.CodeUnsupportedProtocolVersion, Data: []byte(`{"supported":["2025-06-18"]}`)}, false},
		{jsonrpc.Error{Code: jsonrpc.CodeInternalError}, false}, // a broken handshake: the legacy checks say so
	} {
		if got := refusesLegacy(&tc.err); got != tc.want {
			t.Errorf("%d %s: refuses legacy %v, want %v", tc.err.Code, tc.err.Data, got, tc.want)
		}
	}
}
