package http

import (
	"encoding/json"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/streamable"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Client-role helpers, named after what they expect.

var clientCheck = run.For(check.Client, check.HTTP)

// httpLimits are the HTTP client's declared limits (seed defaults where it
// declares none).
type httpLimits struct {
	MaxConcurrent   int
	MaxSSEEventSize int
	Recovery        time.Duration
	Control         time.Duration
	AllowStateless  bool
	Declared        map[string]bool
}

// limitsOf reads the limits from the config line of a run.
func limitsOf(o target.Output) httpLimits {
	d := streamable.DefaultClientConfig("") // the seed defaults, for what the client does not declare
	l := httpLimits{MaxConcurrent: d.MaxConcurrentRequests, MaxSSEEventSize: d.MaxSSEEventSize, Recovery: d.SessionRecoveryTimeout,
		Control: d.ControlRequestTimeout, AllowStateless: d.AllowStateless, Declared: map[string]bool{}}
	if v, ok := o.Int(target.LimitMaxConcurrent); ok {
		l.MaxConcurrent, l.Declared[target.LimitMaxConcurrent] = int(max(v, 1)), true
	}
	if v, ok := o.Int(target.LimitMaxSSEEventSize); ok {
		l.MaxSSEEventSize, l.Declared[target.LimitMaxSSEEventSize] = int(v), true
	}
	if v, ok := o.Int(target.LimitSessionRecoveryMS); ok {
		l.Recovery, l.Declared[target.LimitSessionRecoveryMS] = time.Duration(v)*time.Millisecond, true
	}
	if v, ok := o.Int(target.LimitControlRequestMS); ok {
		l.Control, l.Declared[target.LimitControlRequestMS] = time.Duration(v)*time.Millisecond, true
	}
	if v, ok := o.Int(target.LimitAllowStateless); ok {
		l.AllowStateless, l.Declared[target.LimitAllowStateless] = v != 0, true
	}
	return l
}

// declared returns the HTTP client's declared limits.
func declared(c *run.C) httpLimits { return limitsOf(c.HTTPDeclared()) }

func wantAllCallsOK(c *run.C, r *run.HTTPClientRun, n int) { c.WantAllCallsOK(r.Output, n) }

func wantCallFailed(c *run.C, r *run.HTTPClientRun, why string) {
	c.Require(len(r.Calls) > 0 && !r.Calls[0].OK(), "the call fails ("+why+")", "calls: %s", describeCalls(r.Calls))
}

var describeCalls = run.DescribeCalls

// callIDs returns the JSON-RPC ids of the tools/call requests for tool, in order.
func callIDs(r *run.HTTPClientRun, tool string) []string {
	var out []string
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "tools/call" && toolName(m) == tool {
				out = append(out, m.ID.Key())
			}
		}
	}
	return out
}

func toolName(m *jsonrpc.Message) string {
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Name
}

// initializeRequests returns the POSTs carrying initialize.
func initializeRequests(r *run.HTTPClientRun) []fakeservers.HTTPRequest {
	var out []fakeservers.HTTPRequest
	for _, q := range r.Requests {
		for _, m := range q.Messages {
			if m.Method == "initialize" {
				out = append(out, q)
			}
		}
	}
	return out
}
