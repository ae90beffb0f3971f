package run

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
)

// RequireRuleAt is RequireRule for the part of a rule stated at level:
// a rule that states several levels (JR-28: MUST NOT for the spec's own
// allocations, SHOULD NOT for an implementation's codes) is judged at the
// level of the part the check observes, when it binds the side under test
// in the check's eras; otherwise as RequireRule judges it.
func (c *C) RequireRuleAt(rule string, level check.Level, ok bool, expected, observedFormat string, args ...any) {
	if ok {
		return
	}
	if _, binds := c.specLevel(rule); !binds {
		c.RequireRule(rule, ok, expected, observedFormat, args...)
	}
	panic(verdict{outcome: check.Fail, message: "expected: " + expected + " (" + rule + ")\nobserved: " + fmt.Sprintf(observedFormat, args...), level: level})
}
