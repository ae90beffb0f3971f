package report

import (
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/rules"
)

// ruleRef is a rule ID as the reports link it: the rule's sentence and,
// for a rule of the specification, the URL of its section. An ID the
// table does not know keeps its ID and nothing else.
func ruleRef(id string) rules.Rule {
	r, ok := rules.Lookup(id)
	if !ok {
		return rules.Rule{ID: id}
	}
	return r
}

// mdRules renders rule IDs for a Markdown table cell, each a link to the
// section of the specification it comes from (a seed rule stays plain).
func mdRules(ids []string) string {
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		if u := ruleRef(id).Link(); u != "" {
			parts = append(parts, "["+mdCell(id)+"]("+u+")")
		} else {
			parts = append(parts, mdCell(id))
		}
	}
	return strings.Join(parts, ", ")
}

// ruleURLProperty is the JUnit property that links a test case to a rule:
// its value is the rule ID and the URL of its text.
const ruleURLProperty = "rule_url"

// withRuleURLs returns the spec with one rule_url report entry for each
// rule its labels cite ("rule:ST-03"): Ginkgo's JUnit reporter writes
// report entries as test case properties (and, for a spec that failed,
// in its timeline too).
func withRuleURLs(s types.SpecReport) types.SpecReport {
	var entries types.ReportEntries
	for _, l := range s.LeafNodeLabels {
		if id, ok := strings.CutPrefix(l, "rule:"); ok {
			if u := ruleRef(id).URL; u != "" {
				entries = append(entries, types.ReportEntry{Name: ruleURLProperty, Value: types.WrapEntryValue(id + " " + u)})
			}
		}
	}
	if len(entries) > 0 {
		s.ReportEntries = append(append(types.ReportEntries{}, s.ReportEntries...), entries...)
	}
	return s
}
