package server

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tool results, reached by calling the tools the server lists (as far as
// the run's tool policy allows): TL-07, TL-13, TL-14.

// resourceLinkSince is the first version with resource_link content, tool
// titles, outputSchema and structuredContent (TL-11, TL-12, TL-13).
const resourceLinkSince = v0618

// toolsWay is what a server must offer to have its tools judged.
const toolsWay = "declare tools, and serve tools/list and tools/call, to be judged"

var _ = serverCheck(check.Descriptor{
	ID: "server.tools.content-valid",
	Title: fmt.Sprintf("every tool the run may call (the first %d listed, in each era the server serves), called with arguments its inputSchema accepts, "+
		"answers content blocks valid for the version: text; image and audio with base64 data and a MIME type; a resource with a uri and text or a base64 blob; "+
		"a resource_link with uri and name (2025-06-18 on)", maxToolCalls),
	Requirement: "A tools/call result holds content, an array of the content blocks the negotiated version defines; image and audio data is base64 " +
		"with a valid MIME type; isError, when present, is a boolean; a server that embeds resources should declare the resources capability.",
	Rules:       []string{"TL-14", "TL-07", "TL-13"},
	Eras:        check.BothEras,
	Capability:  "tools",
	KilledBy:    []mutant.Name{mutant.ToolImageNotBase64},
	TakesCensus: true,
	Waits:       []check.Wait{toolCallBudget},
}, func(c *run.C) {
	eachEraDeclaring(c, "tools", toolsWay, func(p *peer, e servedEra) {
		var tools []mcp.Tool
		for _, t := range listTools(c, p) {
			tools = append(tools, t.Tool)
		}
		embedded := ""
		for _, r := range callTools(c, p, e.version, tools, "tool") {
			var res struct {
				Content json.RawMessage `json:"content"`
				IsError json.RawMessage `json:"isError"`
			}
			_ = json.Unmarshal(r.result, &res)
			what := fmt.Sprintf("the result of %s (%s, %s)", r.tool.Name, e.version, p.transport)
			var blocks []json.RawMessage
			c.Require(json.Unmarshal(res.Content, &blocks) == nil && blocks != nil, what+": content is an array", "%s", clip(string(r.result)))
			if res.IsError != nil {
				var b bool
				c.Require(json.Unmarshal(res.IsError, &b) == nil, what+": isError is a boolean", "isError %s", clip(string(res.IsError)))
			}
			for i, block := range blocks {
				problem := toolContentProblem(block, e.version)
				c.Require(problem == "", fmt.Sprintf("%s: content[%d] is a valid content block of %s", what, i, e.version), "%s: %s", problem, clip(string(block)))
				if blockType(block) == "resource" {
					embedded = r.tool.Name
				}
			}
		}
		if embedded != "" {
			c.RequireRule("TL-13", e.caps["resources"] != nil, fmt.Sprintf("a server whose tools embed resources declares the resources capability (%s, %s)", e.version, p.transport),
				"%s embedded a resource; the capabilities declare no resources", embedded)
		}
	})
})

// blockType is a content block's type.
func blockType(block json.RawMessage) string {
	var b struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(block, &b)
	return b.Type
}

// toolContentProblem says what is wrong with one content block of a tool
// result in version, "" when nothing is: contentProblem's rules, and no
// resource_link before 2025-06-18.
func toolContentProblem(block json.RawMessage, version string) string {
	if problem := contentProblem(block); problem != "" {
		return problem
	}
	if blockType(block) == "resource_link" && version < resourceLinkSince {
		return fmt.Sprintf("a resource_link, which %s does not have (%s on)", version, resourceLinkSince)
	}
	return ""
}
