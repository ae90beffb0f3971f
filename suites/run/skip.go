package run

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
)

// Reasons a server check is SKIPPED: the run names no server over its
// transport. The console summary counts the checks of each reason once.
const (
	NoServerURL     = report.NoServerURL
	NoServerCommand = report.NoServerCommand
)

// Skip ends the check as SKIPPED: the run gives it nothing to test (its
// transport was not given); why says what to pass to run it.
func (c *C) Skip(why string) { panic(verdict{outcome: check.Skipped, message: why}) }
