package run

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

func TestServerErasApply(t *testing.T) {
	legacy, modern, both := []check.Era{check.Legacy}, []check.Era{check.Modern}, []check.Era{check.Legacy, check.Modern}
	for _, tc := range []struct {
		name   string
		server ServerEras
		want   map[string]bool // era list → applies
	}{
		{"legacy only", ServerEras{Legacy: true}, map[string]bool{"legacy": true, "modern": false, "both": true}},
		{"modern only", ServerEras{Modern: true}, map[string]bool{"legacy": false, "modern": true, "both": true}},
		{"dual", ServerEras{Legacy: true, Modern: true}, map[string]bool{"legacy": true, "modern": true, "both": true}},
		// A server that answered neither probe is judged as a legacy one,
		// so its broken handshake fails the legacy checks.
		{"neither", ServerEras{}, map[string]bool{"legacy": true, "modern": false, "both": true}},
	} {
		for name, eras := range map[string][]check.Era{"legacy": legacy, "modern": modern, "both": both} {
			if got := tc.server.Applies(eras); got != tc.want[name] {
				t.Errorf("%s server, %s checks: applies %v, want %v", tc.name, name, got, tc.want[name])
			}
		}
	}
}
