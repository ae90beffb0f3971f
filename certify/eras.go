package certify

import (
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/suites/run"
)

// certifiedEras are the eras the run certified each role's target in, from
// what its pre-flight probed: a server in each era its era probe over some
// transport found it serves (run.ServerEras.Applies: one that answered
// neither probe is judged as a legacy one), a client in each era its adapter
// claims in its config line over some transport (target.Output.Eras).
func certifiedEras() report.CertifiedEras {
	c := report.CertifiedEras{}
	h := run.TakeHandoff()
	for _, e := range h.Eras {
		if e.NotAServer != "" {
			continue
		}
		for _, era := range []check.Era{check.Legacy, check.Modern} {
			if e.Applies([]check.Era{era}) {
				c.Add(check.Server, era)
			}
		}
	}
	for _, p := range h.Clients {
		for _, era := range p.Run.Eras() {
			c.Add(check.Client, check.Era(era))
		}
	}
	return c
}
