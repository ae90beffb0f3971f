package mcpserver

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// mcpconform's tools for the content the official suite's fixtures do not
// return: a resource link, an embedded binary resource, and structured
// content with the outputSchema it conforms to.

// structuredSince is the first protocol version with tool titles,
// outputSchema, structuredContent and resource_link content (TL-02, TL-11,
// TL-12, TL-13); a session of an older version gets none of them.
const structuredSince = "2025-06-18"

// weatherSchema is test_structured_content's outputSchema.
var weatherSchema = schema(`{"type":"object","properties":{` +
	`"temperature":{"type":"number","description":"Degrees Celsius"},` +
	`"conditions":{"type":"string"}},"required":["temperature","conditions"],"additionalProperties":false}`)

// weather is test_structured_content's structuredContent.
var weather = map[string]any{"temperature": 21.5, "conditions": "sunny"}

// structuredContentTool is test_structured_content's tools/list entry: a
// title and an outputSchema beside what every tool has.
var structuredContentTool = func() mcp.Tool {
	t := tool("test_structured_content", "Returns a weather report as structuredContent that conforms to its outputSchema, mirrored as JSON in a text block.", noArguments)
	t.Title = "Structured content"
	t.OutputSchema = weatherSchema
	return t
}()

// resourceLink links to a resource the server has (TL-13); before
// 2025-06-18, which has no resource_link, it names the resource in text.
func resourceLink(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	if rc.sess.protocolVersion() < structuredSince {
		return TextResult("The static text resource is test://static-text."), nil
	}
	return mcp.CallToolResult{Content: []json.RawMessage{
		textContent("A link to the static text resource:"),
		content(map[string]string{"type": "resource_link", "uri": "test://static-text", "name": "static-text", "mimeType": "text/plain"}),
	}}, nil
}

// embeddedBlob embeds the server's binary resource as a base64 blob (TL-13,
// RS-06).
func embeddedBlob(*RequestContext, json.RawMessage) (mcp.CallToolResult, error) {
	return mcp.CallToolResult{Content: []json.RawMessage{content(map[string]any{"type": "resource", "resource": map[string]string{
		"uri": "test://static-binary", "mimeType": "image/png", "blob": fixturePNG(),
	}})}}, nil
}

// structuredContent returns weather as structuredContent, which conforms
// to weatherSchema (TL-12), and as its JSON text in a text block for
// clients that read only content (TL-11); before 2025-06-18 the text only.
func structuredContent(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	text, _ := json.Marshal(weather)
	res := mcp.CallToolResult{Content: []json.RawMessage{textContent(string(text))}}
	if rc.sess.protocolVersion() < structuredSince {
		return res, nil
	}
	structured := weather
	switch rc.srv.opts.Mutant {
	case mutant.StructuredContentOffSchema:
		structured = map[string]any{"temperature": "21.5", "conditions": "sunny"}
	case mutant.StructuredContentNoText:
		res.Content = []json.RawMessage{textContent("It is sunny.")}
	case mutant.PlantedStructuredDrift:
		structured = rc.sess.plantedDrift(structured)
	}
	res.StructuredContent, _ = json.Marshal(structured)
	return res, nil
}

// listedFor is the tools/list entries all as a session of version gets
// them: without the titles and outputSchemas its version does not have;
// under mutant ToolInputSchemaInvalid the log tool's inputSchema is no JSON
// Schema, under ToolSchemaDraft04 one of draft-04 that names no $schema.
func (s *Server) listedFor(version string, all []mcp.Tool) []mcp.Tool {
	for i := range all {
		if version < structuredSince {
			all[i].Title, all[i].OutputSchema = "", nil
		}
		if s.opts.Mutant == mutant.ToolInputSchemaInvalid && all[i].Name == "log" {
			all[i].InputSchema = schema(`{"type":"object","properties":{"level":{"type":"strin"}}}`)
		}
		if s.opts.Mutant == mutant.ToolSchemaDraft04 && all[i].Name == "log" {
			all[i].InputSchema = schema(`{"type":"object","properties":{"count":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}`)
		}
	}
	return all
}
