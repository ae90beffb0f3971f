package server

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Structured tool output, reached by calling the listed tools that declare
// an outputSchema (as far as the run's tool policy allows): TL-11, TL-12.

var _ = serverCheck(check.Descriptor{
	ID: "server.tools.structured-output",
	Title: "every tool that declares an outputSchema and that the run may call, called in each era from 2025-06-18 on, answers structuredContent " +
		"that conforms to it, and mirrors it as JSON in a text block",
	Requirement: "A tool with an outputSchema returns structuredContent that conforms to it (an object before 2026-07-28); a tool that returns " +
		"structuredContent should also return its serialized JSON in a text block, for clients that read only content.",
	Rules:       []string{"TL-12", "TL-11"},
	Eras:        check.BothEras,
	Capability:  "tools",
	KilledBy:    []mutant.Name{mutant.StructuredContentOffSchema, mutant.StructuredContentNoText},
	TakesCensus: true,
	Waits:       []check.Wait{toolCallBudget},
}, func(c *run.C) {
	eachEraDeclaring(c, "tools", toolsWay, func(p *peer, e servedEra) {
		if e.version < resourceLinkSince {
			c.NotApplicable(fmt.Sprintf("the server negotiated %s (%s), which has no outputSchema or structuredContent (%s on)", e.version, p.transport, resourceLinkSince))
		}
		var declaring []mcp.Tool
		schemas := map[string]*wireschema.ToolSchema{}
		for _, t := range listTools(c, p) {
			if t.OutputSchema == nil {
				continue
			}
			s, err := wireschema.CompileToolSchema(t.OutputSchema)
			if err != nil {
				c.Note("the outputSchema of %s (%s, %s) did not compile (%v): its results were not judged", t.Name, e.version, p.transport, err)
				continue
			}
			schemas[t.Name] = s
			declaring = append(declaring, t.Tool)
		}
		if len(declaring) == 0 {
			c.Unimplemented(fmt.Sprintf("no listed tool declares an outputSchema that compiles (%s, %s); list one that returns structuredContent to have it judged", e.version, p.transport))
		}
		var unmirrored []string
		for _, r := range callTools(c, p, e.version, declaring, "tool with an outputSchema") {
			var res struct {
				IsError           bool              `json:"isError"`
				StructuredContent json.RawMessage   `json:"structuredContent"`
				Content           []json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(r.result, &res)
			if res.IsError {
				c.Note("%s (%s, %s) answered isError: a failed call owes no structuredContent", r.tool.Name, e.version, p.transport)
				continue
			}
			what := fmt.Sprintf("the result of %s (%s, %s)", r.tool.Name, e.version, p.transport)
			sc := res.StructuredContent
			c.Require(sc != nil, what+": structuredContent, since the tool declares an outputSchema", "none: %s", clip(string(r.result)))
			if p.modern == "" {
				var obj map[string]json.RawMessage
				c.Require(json.Unmarshal(sc, &obj) == nil && obj != nil, what+": structuredContent is an object", "%s", clip(string(sc)))
			}
			why := schemas[r.tool.Name].Validate(sc)
			c.Require(why == "", what+": structuredContent conforms to the tool's outputSchema", "%s in %s; outputSchema %s", why, clip(string(sc)), clip(string(r.tool.OutputSchema)))
			if !mirrors(res.Content, sc) {
				unmirrored = append(unmirrored, fmt.Sprintf("%s: content %s", r.tool.Name, clip(marshal(res.Content))))
			}
		}
		c.RequireRule("TL-11", len(unmirrored) == 0, fmt.Sprintf("a text block holding the JSON of structuredContent (%s, %s)", e.version, p.transport),
			"%s", strings.Join(unmirrored, "; "))
	})
})

// mirrors reports whether a text block of content holds structured as
// JSON (any spacing and member order).
func mirrors(content []json.RawMessage, structured json.RawMessage) bool {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return false
	}
	for _, block := range content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		var got any
		if json.Unmarshal(block, &b) == nil && b.Type == "text" && json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}
