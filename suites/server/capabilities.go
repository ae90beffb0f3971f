package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A server declares the capability of every feature it serves: LC-11,
// TL-01, RS-01, PM-01, CP-01, LG-01.

// servedFeatures are the feature requests a server may serve, each with the
// capability it must then have declared and the member of the result that
// shows something is offered (a list with items; "" for setLevel, where a
// result is enough), in the order the check sends them. An empty list offers
// nothing, so answering one without the capability is no breach.
var servedFeatures = []struct{ method, capability, offers string }{
	{"tools/list", "tools", "tools"},
	{"resources/list", "resources", "resources"},
	{"resources/templates/list", "resources", "resourceTemplates"},
	{"prompts/list", "prompts", "prompts"},
	{"completion/complete", "completions", "completion"},
	{"logging/setLevel", "logging", ""},
}

// offersSomething reports whether a feature's result offers anything: its
// list (for completion, completion.values) has an item.
func offersSomething(result json.RawMessage, member string) bool {
	if member == "" {
		return true
	}
	var r map[string]json.RawMessage
	_ = json.Unmarshal(result, &r)
	list := r[member]
	if member == "completion" {
		var c struct {
			Values json.RawMessage `json:"values"`
		}
		_ = json.Unmarshal(list, &c)
		list = c.Values
	}
	var items []json.RawMessage
	return json.Unmarshal(list, &items) == nil && len(items) > 0
}

var _ = serverCheck(check.Descriptor{
	ID:          "server.capabilities.declared-for-served",
	Title:       "every feature the server serves (tools, resources, prompts, completions, logging) and every notifications/message it sends has its capability declared",
	Requirement: "A server declares the capability of each feature it offers: tools, resources, prompts, completions, and logging when it emits notifications/message.",
	Rules:       []string{"LC-11", "LG-01", "TL-01", "RS-01", "PM-01", "CP-01"},
	KilledBy:    []mutant.Name{mutant.LoggingUndeclared},
	Waits:       []check.Wait{{What: "log messages, after the last request", Setting: check.QuietWindow}},
}, func(c *run.C) {
	eachTransport(c, func(p *peer) {
		r := p.initialize(v1125, nil)
		declared := slices.Sorted(maps.Keys(r.Capabilities))
		mustDeclare := func(capability, because string) {
			c.Require(r.Capabilities[capability] != nil, fmt.Sprintf("the %s capability declared, since %s (%s)", capability, because, p.transport),
				"initialize declared only: %s", strings.Join(declared, ", "))
		}
		results := map[string]json.RawMessage{}
		for _, f := range servedFeatures {
			m := p.request(f.method, featureParams(f.method, results))
			if m.Error == nil {
				results[f.method] = m.Result
				if offersSomething(m.Result, f.offers) {
					mustDeclare(f.capability, "the server offers something through "+f.method)
				}
			}
		}
		if _, ok := results["tools/list"]; ok {
			found, _, left := offeredFixtures(c, p, "logging")
			if len(found) == 0 && len(left) > 0 {
				c.Note("no logging tool was called, so a log message it would send was not observed: %s", toolpolicy.Explain(left))
			}
			for _, f := range found {
				p.request("tools/call", p.callParams(f, nil))
			}
		}
		for _, m := range append(p.unread, p.quiet(c.QuietWindow())...) {
			if m.Method == "notifications/message" {
				mustDeclare("logging", "the server sent notifications/message")
			}
		}
	})
})

// featureParams are the params the check sends with method: the lowest
// log level, so every log message may follow, and for completion/complete
// an argument of a prompt or template the lists already answered (PM-02,
// RS-02), or else a made-up one.
func featureParams(method string, results map[string]json.RawMessage) any {
	switch method {
	case "logging/setLevel":
		return map[string]any{"level": levels[0]}
	case "completion/complete":
		ref, arg := completionTarget(results)
		return map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}
	}
	return nil
}

// templateVariable finds the first variable of an RFC 6570 template.
var templateVariable = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_]+)`)

// completionTarget picks what completion/complete may complete: an argument
// of a listed prompt, else a variable of a listed resource template.
func completionTarget(results map[string]json.RawMessage) (ref map[string]string, argument string) {
	var prompts struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	_ = json.Unmarshal(results["prompts/list"], &prompts)
	for _, pr := range prompts.Prompts {
		if len(pr.Arguments) > 0 {
			return map[string]string{"type": "ref/prompt", "name": pr.Name}, pr.Arguments[0].Name
		}
	}
	var templates struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	_ = json.Unmarshal(results["resources/templates/list"], &templates)
	for _, t := range templates.ResourceTemplates {
		if v := templateVariable.FindStringSubmatch(t.URITemplate); v != nil {
			return map[string]string{"type": "ref/resource", "uri": t.URITemplate}, v[1]
		}
	}
	return map[string]string{"type": "ref/prompt", "name": "mcpconform-probe"}, madeUpArgument
}

// madeUpArgument is the argument completionTarget names when the lists
// offer none.
const madeUpArgument = "mcpconform-argument"
