package run

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

// For returns a Check that fills in the role and transport: what a suite's
// files register their checks with. The level and source follow from the
// descriptor's rules (check.Descriptor.Resolve).
func For(role check.Role, transport check.Transport) func(check.Descriptor, func(*C)) bool {
	return func(d check.Descriptor, body func(*C)) bool {
		d.Role, d.Transport = role, transport
		return Check(d, body)
	}
}

// Killers lists mutant names for a descriptor's KilledBy.
func Killers(ms ...mutant.Name) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
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
