package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
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

// TestRunsStateTheErasCertified certifies reference servers of each era
// and the reference client: the JSON index's certified_eras and the
// console's footer name the eras the server's probe found it serves and
// those the client's adapter claims (the reference adapter's claim is its
// config line's: legacy at least).
func TestRunsStateTheErasCertified(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want report.CertifiedEras // nil: the reference client's claim
	}{
		{"modern server", append([]string{"server", "--only", "server.discover.result", "--"}, selfexec.Command("serve", "--transport", "stdio", "--era", "modern")...),
			report.CertifiedEras{check.Server: {check.Modern}}},
		{"dual server", append([]string{"server", "--only", "server.discover.result", "--"}, selfexec.Command("serve", "--transport", "stdio")...),
			report.CertifiedEras{check.Server: {check.Legacy, check.Modern}}},
		{"reference client", []string{"client", "--only", "stdio.client.wire.schema-valid"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			code, out := runChild(tc.args[0], append([]string{"--json", js, "--no-color"}, tc.args[1:]...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			var ix report.Index
			readJSON(t, js, &ix)
			if tc.want == nil && len(ix.CertifiedEras) == 1 && len(ix.CertifiedEras[check.Client]) > 0 {
				tc.want = report.CertifiedEras{check.Client: ix.CertifiedEras[check.Client]}
			}
			if !reflect.DeepEqual(ix.CertifiedEras, tc.want) {
				t.Errorf("certified_eras %v, want %v", ix.CertifiedEras, tc.want)
			}
			if line := "eras certified: " + tc.want.String() + "\n"; !strings.Contains(string(out), line) {
				t.Errorf("the console lacks %q:\n%s", line, out)
			}
		})
	}
}
