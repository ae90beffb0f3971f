package certify

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestCertifiedErasFollowThePreflight: a server is certified in each era
// its probe over some transport found it serves (legacy when it answered
// neither probe; not at all when it is no MCP server), a client in each
// era its adapter's config line claims over some transport (legacy when
// it claims none).
func TestCertifiedErasFollowThePreflight(t *testing.T) {
	claims := func(eras string) run.ClientProbe {
		out := target.Output{}
		if eras != "" {
			out.Config = map[string]json.RawMessage{target.ConfigEras: json.RawMessage(eras)}
		}
		return run.ClientProbe{Run: &target.Run{Output: out}}
	}
	for _, tc := range []struct {
		name string
		h    run.Handoff
		want report.CertifiedEras
	}{
		{"each transport's eras", run.Handoff{
			Eras:    map[check.Transport]run.ServerEras{check.Stdio: {Legacy: true}, check.HTTP: {Modern: true}},
			Clients: map[string]run.ClientProbe{"stdio": claims(`["modern"]`), "http": claims("")},
		}, report.CertifiedEras{check.Server: {check.Legacy, check.Modern}, check.Client: {check.Legacy, check.Modern}}},
		{"judged as legacy", run.Handoff{
			Eras: map[check.Transport]run.ServerEras{check.Stdio: {}},
		}, report.CertifiedEras{check.Server: {check.Legacy}}},
		{"no MCP server", run.Handoff{
			Eras: map[check.Transport]run.ServerEras{check.HTTP: {NotAServer: "nothing listens"}},
		}, report.CertifiedEras{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run.Configure(run.Options{})
			defer run.Configure(run.Options{})
			run.GiveHandoff(tc.h)
			if got := certifiedEras(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("certified eras %v, want %v", got, tc.want)
			}
		})
	}
}
