package http

import (
	"reflect"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
)

func TestExpectHTTP(t *testing.T) {
	plan := httpfake.FuzzScript{Calls: []httpfake.FuzzCall{
		{EventSize: 1000}, {EventSize: 1001}, {}, {Expire: true, EventSize: 1000}, {Expire: true, EventSize: 1001}, {Ping: true},
	}}
	want := []httpCallWant{{true, "RM-09"}, {false, "RM-09"}, {true, "RM-09"}, {true, "RM-05"}, {false, "RM-05"}, {true, "RM-09"}}
	if got := expectHTTP(plan, 1000, true); !reflect.DeepEqual(got, want) {
		t.Errorf("with recovery: %+v; want %+v", got, want)
	}
	want[3].OK = false
	if got := expectHTTP(plan, 1000, false); !reflect.DeepEqual(got, want) {
		t.Errorf("without recovery: %+v; want %+v", got, want)
	}
}

func TestHTTPCasesDeterministicAndFocused(t *testing.T) {
	const limit = 64 << 10
	for seed := int64(1); seed <= 100; seed++ {
		fc := genHTTPCase(seed, limit, true)
		if !reflect.DeepEqual(fc, genHTTPCase(seed, limit, true)) {
			t.Fatalf("seed %d built two different cases", seed)
		}
		has := func(f func(httpfake.FuzzCall) bool) bool {
			for _, p := range fc.Plan.Calls {
				if f(p) {
					return true
				}
			}
			return false
		}
		ok := map[string]bool{
			"sse-exact": has(func(p httpfake.FuzzCall) bool { return p.EventSize == limit }),
			"sse-over":  has(func(p httpfake.FuzzCall) bool { return p.EventSize == limit+1 }),
			"sse-under": has(func(p httpfake.FuzzCall) bool { return p.EventSize == limit-1 }),
			"expire":    has(func(p httpfake.FuzzCall) bool { return p.Expire }),
			"ping":      has(func(p httpfake.FuzzCall) bool { return p.Ping }),
		}[fc.Focus]
		if !ok {
			t.Errorf("seed %d: focus %s not in its plan %+v", seed, fc.Focus, fc.Plan)
		}
	}
}
