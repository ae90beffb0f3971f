package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Resource templates, found by listing them: RS-02 (RFC 6570 templates),
// PA-01 (every page), JR-01 (each item the schema's ResourceTemplate).

// uriTemplateExpression is one RFC 6570 expression: an optional operator,
// then variables, each with an optional prefix or explode modifier.
var uriTemplateExpression = regexp.MustCompile(`^[+#./;?&=,!@|]?` +
	`(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?` +
	`(?:,(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?)*$`)

// uriTemplateProblem says what keeps t from being an RFC 6570 URI
// template: an unclosed or nested brace, an expression that is not one, a
// literal character the RFC excludes. It is "" for a valid template.
func uriTemplateProblem(t string) string {
	if t == "" {
		return "it is empty"
	}
	for rest := t; rest != ""; {
		open := strings.IndexAny(rest, "{}")
		literal := rest
		if open >= 0 {
			literal = rest[:open]
		}
		if i := strings.IndexFunc(literal, func(r rune) bool { return r <= ' ' || strings.ContainsRune("\"'<>\\^`|", r) }); i >= 0 {
			return fmt.Sprintf("literal character %q, which RFC 6570 excludes", literal[i])
		}
		if open < 0 {
			break
		}
		if rest[open] == '}' {
			return "a '}' without its '{'"
		}
		end := strings.IndexAny(rest[open+1:], "{}")
		if end < 0 || rest[open+1+end] == '{' {
			return "a '{' without its '}'"
		}
		if expr := rest[open+1 : open+1+end]; !uriTemplateExpression.MatchString(expr) {
			return fmt.Sprintf("expression {%s}, not an operator and variable names", expr)
		}
		rest = rest[open+2+end:]
	}
	return ""
}

var _ = serverCheck(check.Descriptor{
	ID: "server.resources.templates-listed",
	Title: "every page of resources/templates/list (in each era) lists resource templates that validate against the schema's ResourceTemplate " +
		"(a uriTemplate and a name) with a uriTemplate that is an RFC 6570 URI template",
	Requirement: "resources/templates/list is paginated and returns resource templates, each with a name and a uriTemplate that is an RFC 6570 URI template, " +
		"as the schema of the negotiated version defines ResourceTemplate.",
	Rules:      []string{"JR-01", "RS-02", "PA-01"},
	Eras:       check.BothEras,
	Capability: "resources",
	KilledBy:   []mutant.Name{mutant.TemplateWithoutName},
}, func(c *run.C) {
	eachResourceEra(c, func(p *peer, version string) {
		where := fmt.Sprintf("(%s, %s)", version, p.transport)
		if m := p.ask("resources/templates/list", nil); m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound {
			c.Unimplemented("the server answers resources/templates/list with -32601 " + where + "; list a resource template to have it judged")
		}
		schema, err := wireschema.For(version)
		if err != nil {
			schema, _ = wireschema.For(v1125)
		}
		listed := listAll(c, p, "resources/templates/list", "resourceTemplates")
		if len(listed) == 0 {
			c.Unimplemented("resources/templates/list lists no template " + where + "; list one to have it judged")
		}
		for i, raw := range listed {
			v, err := schema.ValidateDefinition("ResourceTemplate", raw)
			if err != nil {
				c.Errorf("validating resource template %d against schema %s: %v", i, schema.Version(), err)
			}
			c.Require(v == nil, fmt.Sprintf("resource template %d %s validates against ResourceTemplate of schema %s", i, where, schema.Version()),
				"%v: %s", v, clip(string(raw)))
			var t struct {
				URITemplate string `json:"uriTemplate"`
			}
			_ = json.Unmarshal(raw, &t)
			problem := uriTemplateProblem(t.URITemplate)
			c.Require(problem == "", fmt.Sprintf("resource template %d %s: uriTemplate an RFC 6570 URI template", i, where), "%q: %s", t.URITemplate, problem)
		}
	})
})
