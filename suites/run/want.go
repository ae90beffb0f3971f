package run

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"
)

// For returns a Check that fills in the role and transport: what a suite's
// files register their checks with. The level and source follow from the
// descriptor's rules (check.Descriptor.Resolve). A client check runs once
// per era of its descriptor that the client claims (eachEra).
func For(role check.Role, transport check.Transport) func(check.Descriptor, func(*C)) bool {
	return func(d check.Descriptor, body func(*C)) bool {
		d.Role, d.Transport = role, transport
		if role == check.Client {
			body = eachEra(body)
		}
		return Check(d, body)
	}
}

// ForEraChoice is For for a client check whose body names the era of each
// adapter run itself (target.Invocation.Era, the fake's Era): the client's
// own choice when it names none, or two eras meeting. It runs once,
// whatever the eras the client claims.
func ForEraChoice(transport check.Transport) func(check.Descriptor, func(*C)) bool {
	return func(d check.Descriptor, body func(*C)) bool {
		d.Role, d.Transport = check.Client, transport
		return Check(d, body)
	}
}

// WantAllCallsOK expects the client's handshake to succeed (when its adapter
// reports it) and n tool calls, all ok.
func (c *C) WantAllCallsOK(o target.Output, n int) {
	if o.Connect != nil {
		c.Require(o.Connect.Outcome == target.OutcomeOK, "the handshake succeeds",
			"the handshake failed after %d ms: %s", o.Connect.ElapsedMS, o.Connect.Error)
	}
	c.Require(len(o.Calls) == n, fmt.Sprintf("%d tool call result(s)", n),
		"%d tool call result(s): %s", len(o.Calls), DescribeCalls(o.Calls))
	for _, call := range o.Calls {
		c.Require(call.OK(), fmt.Sprintf("tool %q succeeds", call.Tool),
			"tool %q failed after %d ms: %s", call.Tool, call.ElapsedMS, call.Error)
	}
}

// DescribeCalls renders call outcomes for a failure message.
func DescribeCalls(calls []target.Call) string {
	if len(calls) == 0 {
		return "none"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = fmt.Sprintf("%s=%s", c.Tool, c.Outcome)
	}
	return strings.Join(parts, ", ")
}

// Boundary judges a limit the seed gives a default for (a budget, a
// timeout, a size, a cap). With the limit declared in the client's config
// line it judges that value at the check's level. Without it, the hardened
// profile judges the seed default; the spec profile, which has no number
// to hold the client to, ends the check INFO with what was observed.
func (c *C) Boundary(declared bool, key string, ok bool, expected, observedFormat string, args ...any) {
	observed := fmt.Sprintf(observedFormat, args...)
	switch {
	case declared:
		c.Require(ok, expected, "%s", observed)
	case c.Hardened():
		c.RequireHardened(ok, expected+" (the seed default: the client declares no "+key+")", "%s", observed)
	default:
		c.Info(observed + "; the client declares no " + key + " in its config line, so only the hardened profile judges the seed default (declare it to have it tested)")
	}
}

// NoDiscoverProbe is what the legacy-fallback checks say of a client that
// opened with initialize: a legacy-era client, whose handshake has no
// probe to fall back from (LC-45 is about dual-era clients).
const NoDiscoverProbe = "the client opened with initialize, without a server/discover probe: it opens in the legacy era, so the fallback from a refused probe (LC-45) was not exercised"

// ParallelAsked is what a check that needs concurrent calls says when they
// were not.
const ParallelAsked = "the adapter must issue its tool calls concurrently when " + target.EnvParallel + "=1"

// CallsOK reports whether the handshake (when the adapter reports it)
// succeeded and n tool calls did, all ok, and what was observed.
func CallsOK(o target.Output, n int) (bool, string) {
	if o.Connect != nil && o.Connect.Outcome != target.OutcomeOK {
		return false, fmt.Sprintf("the handshake failed after %d ms: %s", o.Connect.ElapsedMS, o.Connect.Error)
	}
	if len(o.Calls) != n {
		return false, fmt.Sprintf("%d tool call result(s), expected %d: %s", len(o.Calls), n, DescribeCalls(o.Calls))
	}
	for _, call := range o.Calls {
		if !call.OK() {
			return false, fmt.Sprintf("tool %q failed after %d ms: %s", call.Tool, call.ElapsedMS, call.Error)
		}
	}
	return true, fmt.Sprintf("%d tool call(s) succeeded", n)
}
