package main

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
		parallel int
		waiting  int
		roles    []check.Role
		want     int
		lowered  bool
	}{
		{"asked", "", 3, 40, []check.Role{check.Server}, 3, false},
		{"over the memory bound", "", 64, 40, []check.Role{check.Server}, maxWorkers(), true},
		{"server by default", "", 0, 100, []check.Role{check.Server}, min(serverPerCore*cores, maxWorkers()), false},
		{"server at a URL by default", "http://127.0.0.1:1/mcp", 0, 100, []check.Role{check.Server}, min(urlPerCore*cores, maxWorkers()), false},
		{"client by default", "", 0, 100, []check.Role{check.Client}, min(clientPerCore*cores, maxWorkers()), false},
		{"both roles by default", "", 0, 100, []check.Role{check.Client, check.Server}, min(serverPerCore*cores, maxWorkers()), false},
		{"few checks wait", "", 0, 1, []check.Role{check.Server}, min(1+cores, maxWorkers()), false},
	} {
		p := &prepared{waiting: tc.waiting}
		note := settleWorkers(&runOptions{parallel: tc.parallel, url: tc.url}, p, tc.roles)
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
