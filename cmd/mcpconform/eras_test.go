package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

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
