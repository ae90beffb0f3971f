package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Completion of a resource template's variable (ref/resource): CP-03.

// requireCompletion judges the answer m to a completion/complete the check
// sent (what names it): a result whose completion holds at most 100 string
// values, a total that counts at least those, and hasMore true exactly when
// total exceeds them (CP-03).
func requireCompletion(c *run.C, what string, m *jsonrpc.Message) {
	c.Require(m.Error == nil, what+" succeeds", "%s", describe(m))
	var r struct {
		Completion struct {
			Values  []json.RawMessage `json:"values"`
			Total   *int              `json:"total"`
			HasMore *bool             `json:"hasMore"`
		} `json:"completion"`
	}
	_ = json.Unmarshal(m.Result, &r)
	values := r.Completion.Values
	c.Require(values != nil, what+": completion.values is an array", "%s", clip(string(m.Result)))
	c.Require(len(values) <= maxCompletionValues, fmt.Sprintf("%s: at most %d values", what, maxCompletionValues), "%d values", len(values))
	for _, v := range values {
		var s string
		c.Require(json.Unmarshal(v, &s) == nil, what+": every value a string", "value %s", clip(string(v)))
	}
	if total := r.Completion.Total; total != nil {
		c.Require(*total >= len(values), what+": total counts at least the values returned", "total %d with %d values", *total, len(values))
		if more := r.Completion.HasMore; more != nil {
			c.Require(*more == (*total > len(values)), what+": hasMore true exactly when total exceeds the values returned",
				"hasMore %t, total %d, %d values", *more, *total, len(values))
		}
	}
}

// pages walks every page of method in the feature's era and returns the
// items of field; a refused page fails the check when required, and else
// ends the walk.
func (f feature) pages(c *run.C, method, field string, required bool) []json.RawMessage {
	return c.Pages(method, field, func(cursor string) json.RawMessage {
		var params map[string]any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		m := f.ask(method, params)
		if required {
			c.Require(m.Error == nil, method+" succeeds ("+f.p.transport+")", "%s", describe(m))
		}
		return m.Result
	})
}

// listedTemplateVariable walks resources/templates/list and returns the
// first template with a variable, and that variable; "" when none has one
// or the list is refused (server.resources.templates-listed judges it).
func (f feature) listedTemplateVariable(c *run.C) (template, variable string) {
	for _, raw := range f.pages(c, "resources/templates/list", "resourceTemplates", false) {
		var t struct {
			URITemplate string `json:"uriTemplate"`
		}
		_ = json.Unmarshal(raw, &t)
		if v := templateVariable.FindStringSubmatch(t.URITemplate); v != nil {
			return t.URITemplate, v[1]
		}
	}
	return "", ""
}

var _ = serverCheck(check.Descriptor{
	ID: "server.completion.resource-template",
	Title: "completion/complete for a variable of a listed resource template (ref/resource) returns at most 100 string values, " +
		"total and hasMore agreeing with them",
	Requirement: "completion/complete completes a resource template's variables as it does a prompt's arguments: a result of at most 100 values; " +
		"total, when present, counts at least the values returned, and hasMore says whether more remain than were returned.",
	Rules:      []string{"CP-03"},
	Eras:       check.BothEras,
	Capability: "completions",
	KilledBy:   []mutant.Name{mutant.TemplateCompletionTotalShort},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		f := openFeature(c, p, "completions")
		template, variable := f.listedTemplateVariable(c)
		if template == "" {
			c.Unimplemented("the server lists no resource template with a variable over " + p.transport + "; list one to have its completions judged")
		}
		m := f.ask("completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/resource", "uri": template},
			"argument": map[string]any{"name": variable, "value": ""},
		})
		requireCompletion(c, fmt.Sprintf("completion/complete of ref/resource %q, variable %q (%s)", template, variable, p.transport), m)
	})
})
