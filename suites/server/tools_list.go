package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What tools/list says of each tool: TL-02, TL-03. Its names are
// server.tools.names-valid's (TL-04).

// toolHints are the boolean hints of a tool's annotations (TL-02).
var toolHints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

var _ = serverCheck(check.Descriptor{
	ID: "server.tools.list-valid",
	Title: "every tool tools/list returns (in each era the server serves) has a string name, string title and description if any, " +
		"an inputSchema that is a JSON Schema with root type object, an outputSchema that is a JSON Schema if any, and annotations of boolean hints",
	Requirement: "A tool has a name, an optional title and description, an inputSchema that is a valid JSON Schema object (of the draft its $schema names, else 2020-12; never null) whose root type is " +
		"\"object\", an optional outputSchema that is a valid JSON Schema (root type object before 2026-07-28), and optional annotations whose hints are booleans.",
	Rules:      []string{"TL-03", "TL-02", "JR-55"},
	Eras:       check.BothEras,
	Capability: "tools",
	KilledBy:   []mutant.Name{mutant.ToolInputSchemaInvalid, mutant.ToolSchemaDraft04},
}, func(c *run.C) {
	eachEraDeclaring(c, "tools", toolsWay, func(p *peer, e servedEra) {
		tools := listTools(c, p)
		if len(tools) == 0 {
			c.Unimplemented(fmt.Sprintf("tools/list returns no tool (%s, %s); list one to have its description judged", e.version, p.transport))
		}
		var bad []string
		for _, t := range tools {
			problems, outside := toolProblems(t.raw, e.version)
			for _, o := range outside {
				c.Note("the %s of %s (%s, %s) was not compiled: %v", o.field, t.Name, e.version, p.transport, o.err)
			}
			if len(problems) > 0 {
				bad = append(bad, fmt.Sprintf("%s: %s", clip(t.Name), strings.Join(problems, "; ")))
			}
		}
		c.Require(len(bad) == 0, fmt.Sprintf("each of the %d tools described as its version defines (%s, %s)", len(tools), e.version, p.transport),
			"%s", strings.Join(bad, "\n"))
	})
})

// uncompiled is a schema of a tool that refers outside itself: it is not
// judged (wireschema.ErrOutsideDocument).
type uncompiled struct {
	field string
	err   error
}

// toolProblems says what is wrong with one tools/list entry in version,
// and which of its schemas could not be compiled because they refer
// outside themselves.
func toolProblems(raw json.RawMessage, version string) (problems []string, outside []uncompiled) {
	var t map[string]json.RawMessage
	if json.Unmarshal(raw, &t) != nil || t == nil {
		return []string{"the entry is not an object"}, nil
	}
	if s, ok := jsonString(t["name"]); !ok || s == "" {
		problems = append(problems, "no string name")
	}
	strs := []string{"description"}
	if version >= resourceLinkSince {
		strs = append(strs, "title")
	}
	for _, f := range strs {
		if v, present := t[f]; present {
			if _, ok := jsonString(v); !ok {
				problems = append(problems, f+" is not a string")
			}
		}
	}
	schemas := []string{"inputSchema"}
	if _, present := t["outputSchema"]; present && version >= resourceLinkSince {
		schemas = append(schemas, "outputSchema")
	}
	for _, f := range schemas {
		objectRoot := f == "inputSchema" || version < mcp.ModernVersion
		problem, err := schemaProblem(t[f], objectRoot)
		if problem != "" {
			problems = append(problems, f+" "+problem)
		}
		if err != nil {
			outside = append(outside, uncompiled{f, err})
		}
	}
	if a, present := t["annotations"]; present {
		problems = append(problems, annotationProblems(a)...)
	}
	return problems, outside
}

// schemaProblem says what is wrong with a tool's schema, "" when nothing
// is: an object, root type "object" when objectRoot, and a JSON Schema its
// draft's meta-schema accepts. err is set, and no problem said, when it
// refers to a document outside itself.
func schemaProblem(raw json.RawMessage, objectRoot bool) (problem string, err error) {
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return "is not an object: " + clip(string(raw)), nil
	}
	if typ, _ := jsonString(s["type"]); objectRoot && typ != "object" {
		return fmt.Sprintf("has root type %s, not \"object\"", clip(string(s["type"]))), nil
	}
	if _, err := wireschema.CompileToolSchema(raw); err != nil {
		if errors.Is(err, wireschema.ErrOutsideDocument) {
			return "", err
		}
		return fmt.Sprintf("is not a valid JSON Schema (%v)", err), nil
	}
	return "", nil
}

// annotationProblems says what is wrong with a tool's annotations: an
// object whose hints are booleans and whose title is a string.
func annotationProblems(raw json.RawMessage) []string {
	var a map[string]json.RawMessage
	if json.Unmarshal(raw, &a) != nil || a == nil {
		return []string{"annotations is not an object"}
	}
	var problems []string
	for _, h := range toolHints {
		var b bool
		if v, present := a[h]; present && json.Unmarshal(v, &b) != nil {
			problems = append(problems, fmt.Sprintf("annotations.%s is %s, not a boolean", h, clip(string(v))))
		}
	}
	if v, present := a["title"]; present {
		if _, ok := jsonString(v); !ok {
			problems = append(problems, "annotations.title is not a string")
		}
	}
	return problems
}
