package run

import "github.com/mcpconform/mcpconform/harness/check"

// Reasons a server check is SKIPPED: the run names no server over its
// transport. The console summary counts the checks of each reason once.
const (
	NoServerURL     = "no --url given: HTTP checks need a streamable HTTP endpoint (mcpconform server --url URL)"
	NoServerCommand = "no server command given: stdio checks need one (mcpconform server -- CMD…)"
)

// Skip ends the check as SKIPPED: the run gives it nothing to test (its
// transport was not given); why says what to pass to run it.
func (c *C) Skip(why string) { panic(verdict{outcome: check.Skipped, message: why}) }
