package certify

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
)

// TestSettleWorkers: --parallel is taken as asked up to what the memory
// bound holds, and without it the machine's cores and the checks that
// declare waits decide.
func TestSettleWorkers(t *testing.T) {
	cores := runtime.NumCPU()
	for _, tc := range []struct {
		name     string
		url      string
		stdio    bool
		parallel int
		waiting  int
		roles    []check.Role
		want     int
		lowered  bool
	}{
		{"asked", "", false, 3, 40, []check.Role{check.Server}, 3, false},
		{"over the memory bound", "", false, 64, 40, []check.Role{check.Server}, maxWorkers(), true},
		{"server by default", "", false, 0, 100, []check.Role{check.Server}, min(serverPerCore*cores, maxWorkers()), false},
		{"server at a URL by default", "http://127.0.0.1:1/mcp", false, 0, 100, []check.Role{check.Server}, min(urlPerCore*cores, maxWorkers()), false},
		{"server at a URL and over stdio by default", "http://127.0.0.1:1/mcp", true, 0, 100, []check.Role{check.Server}, min(serverPerCore*cores, maxWorkers()), false},
		{"client by default", "", false, 0, 100, []check.Role{check.Client}, min(clientPerCore*cores, maxWorkers()), false},
		{"both roles by default", "", false, 0, 100, []check.Role{check.Client, check.Server}, min(serverPerCore*cores, maxWorkers()), false},
		{"few checks wait", "", false, 0, 1, []check.Role{check.Server}, min(1+cores, maxWorkers()), false},
	} {
		p := &prepared{waiting: tc.waiting}
		o := &runOptions{parallel: tc.parallel, url: tc.url}
		if tc.stdio {
			o.target = []string{"server"}
		}
		note := settleWorkers(o, p, tc.roles)
		if p.workers != tc.want || (note != "") != tc.lowered {
			t.Errorf("%s: %d workers (note %q), want %d (lowered %v)", tc.name, p.workers, note, tc.want, tc.lowered)
		}
		wantCap := 0
		if tc.parallel == 0 && len(tc.roles) == 2 {
			wantCap = clientPerCore * cores
		}
		if p.clientCap != wantCap {
			t.Errorf("%s: client cap %d, want %d", tc.name, p.clientCap, wantCap)
		}
		if tc.lowered && !strings.Contains(note, "memory bound") {
			t.Errorf("%s: the note %q does not say why", tc.name, note)
		}
	}
}
