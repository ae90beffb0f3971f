package report

import (
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
)

// CertifiedEras are the protocol eras a run certified each role's target
// in, by role: a server in those its era probes found it serves (a server
// that answered neither probe is judged as a legacy one), a client in those
// its adapter claims in its config line (legacy when it claims none). The
// index's certified_eras; every summary states them.
type CertifiedEras map[check.Role][]check.Era

// Add records that the run certified role's target in era: known eras
// only, each once, in era order (legacy, then modern).
func (c CertifiedEras) Add(role check.Role, era check.Era) {
	order := []check.Era{check.Legacy, check.Modern}
	if !slices.Contains(order, era) || slices.Contains(c[role], era) {
		return
	}
	c[role] = append(c[role], era)
	slices.SortFunc(c[role], func(a, b check.Era) int { return slices.Index(order, a) - slices.Index(order, b) })
}

// String is the eras by role, client first: "client legacy · server
// legacy, modern"; "" when the run certified no role in an era.
func (c CertifiedEras) String() string {
	var parts []string
	for _, role := range sortedKeys(c) {
		if len(c[role]) == 0 {
			continue
		}
		eras := make([]string, len(c[role]))
		for i, e := range c[role] {
			eras[i] = string(e)
		}
		parts = append(parts, string(role)+" "+strings.Join(eras, ", "))
	}
	return strings.Join(parts, " · ")
}

// erasText is a check's eras as the reports show them: "legacy, modern".
func erasText(eras []check.Era) string {
	names := make([]string, len(eras))
	for i, e := range eras {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
