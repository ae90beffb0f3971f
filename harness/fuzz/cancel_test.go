package fuzz

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/serve"
)

// slowCancel is a slow call and its cancel once it runs (the frames of
// the model's slow-cancel step), then a ping.
func slowCancel() []Frame {
	fs := frames(initFrame,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p2"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	fs[2].Wait = WaitProgress
	return fs
}

// TestCancelOracle: a slow call the server showed running and answered
// after its cancel breaks no-response-after-cancel (a finding under
// hardened, a warning under spec); the reference, which never answers a
// cancelled request, holds over stdio and HTTP, and so does a server
// whose answer to the call comes without progress first. (Mutant
// answers-cancelled-request answers from the call's own handler, which
// races the probe ping's: it is seen only when its answer comes first,
// so it is no case here.)
func TestCancelOracle(t *testing.T) {
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	noProgress := slowCancel()
	noProgress[2].Body = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	for _, tc := range []struct {
		name     string
		target   Target
		frames   []Frame
		specOnly bool
		want     Invariant // the MUST break
		warn     bool      // a no-response-after-cancel warning
	}{
		{"reference stdio", reference(), slowCancel(), false, "", false},
		{"reference http", Target{URL: url}, slowCancel(), false, "", false},
		{"planted", reference("--mutant", "planted-response-after-cancel"), slowCancel(), false, NoResponseAfterCancel, false},
		{"planted, spec", reference("--mutant", "planted-response-after-cancel"), slowCancel(), true, "", true},
		{"planted, no progress asked", reference("--mutant", "planted-response-after-cancel"), noProgress, false, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Without progress the call's wait ends at the timeout, which
			// is the fuzzer's default: nothing is judged either way.
			timeout := 5 * time.Second
			if tc.name == "planted, no progress asked" {
				timeout = 2 * time.Second // the fuzzer's own: 300 ms lost the probe under CI load
			}
			out, err := Execute(tc.target, tc.frames, ExecOptions{Timeout: timeout, SlowTools: []string{"slow"}, SpecOnly: tc.specOnly})
			if err != nil {
				t.Fatal(err)
			}
			var got Invariant
			if out.Violation != nil {
				got = out.Violation.Invariant
			}
			if got != tc.want {
				t.Errorf("broke %q (%v), want %q", got, out.Violation, tc.want)
			}
			warned := false
			for _, w := range out.Warnings {
				warned = warned || w.Invariant == NoResponseAfterCancel
			}
			if warned != tc.warn {
				t.Errorf("warnings %v, want a no-response-after-cancel warning: %v", out.Warnings, tc.warn)
			}
		})
	}
}
