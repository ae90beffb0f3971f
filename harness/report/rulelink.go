package report

import (
	"strings"

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

// ruleURLLines are the lines that link a JUnit test case to the text of
// each rule it cites: "rule ST-03 https://…". The schema allows no
// properties on a test case, so they go in its system-out.
func ruleURLLines(ids []string) []string {
	var out []string
	for _, id := range ids {
		if u := ruleRef(id).URL; u != "" {
			out = append(out, "rule "+id+" "+u)
		}
	}
	return out
}
