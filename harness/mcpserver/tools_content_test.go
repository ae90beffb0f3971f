package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

func init() {
	serverRuleOf[mutant.ToolImageNotBase64] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		b := blocks(t, toolResultOf(t, p.tool("test_image_content", "{}")))
		data, _ := b[0]["data"].(string)
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return true, "image data " + data
		}
		return false, "base64 image data"
	}
	serverRuleOf[mutant.ToolInputSchemaInvalid] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		for _, tool := range listedTools(t, p, "2025-11-25") {
			if _, err := wireschema.CompileToolSchema(tool.InputSchema); err != nil {
				return true, fmt.Sprintf("the inputSchema of %s: %v", tool.Name, err)
			}
		}
		return false, "every inputSchema a JSON Schema"
	}
	serverRuleOf[mutant.StructuredContentOffSchema] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		s, err := wireschema.CompileToolSchema(weatherSchema)
		if err != nil {
			t.Fatal(err)
		}
		r := toolResultOf(t, p.tool("test_structured_content", "{}"))
		if why := s.Validate(r.StructuredContent); why != "" {
			return true, why
		}
		return false, "structuredContent the outputSchema accepts"
	}
	serverRuleOf[mutant.StructuredContentNoText] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		r := toolResultOf(t, p.tool("test_structured_content", "{}"))
		if !strings.Contains(textOf(r), string(r.StructuredContent)) {
			return true, fmt.Sprintf("text %q for structuredContent %s", textOf(r), r.StructuredContent)
		}
		return false, "its JSON in a text block"
	}
}

// listedTools walks every page of tools/list in a session of version.
func listedTools(t *testing.T, p *peer, version string) []mcp.Tool {
	t.Helper()
	var all []mcp.Tool
	cursor := ""
	for {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		var page struct {
			Tools      []mcp.Tool `json:"tools"`
			NextCursor string     `json:"nextCursor"`
		}
		if err := json.Unmarshal(p.call("tools/list", params).Result, &page); err != nil {
			t.Fatalf("tools/list (%s): %v", version, err)
		}
		all = append(all, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return all
		}
	}
}

func TestContentToolsAnswerEachKind(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	link := blocks(t, toolResultOf(t, p.tool("test_resource_link", "{}")))
	if len(link) != 2 || link[1]["type"] != "resource_link" || link[1]["uri"] != "test://static-text" || link[1]["name"] == nil {
		t.Errorf("test_resource_link: %v", link)
	}
	blob := blocks(t, toolResultOf(t, p.tool("test_embedded_blob", "{}")))
	res, _ := blob[0]["resource"].(map[string]any)
	data, _ := res["blob"].(string)
	if raw, err := base64.StdEncoding.DecodeString(data); err != nil || len(raw) < 8 || res["uri"] != "test://static-binary" {
		t.Errorf("test_embedded_blob: %v (%v)", blob, err)
	}
	r := toolResultOf(t, p.tool("test_structured_content", "{}"))
	s, err := wireschema.CompileToolSchema(weatherSchema)
	if err != nil {
		t.Fatal(err)
	}
	if why := s.Validate(r.StructuredContent); why != "" || textOf(r) != string(r.StructuredContent) {
		t.Errorf("test_structured_content: %s with text %q: %s", r.StructuredContent, textOf(r), why)
	}
	for _, tool := range listedTools(t, p, "2025-11-25") {
		if tool.Name == "test_structured_content" && (tool.Title == "" || string(tool.OutputSchema) != string(weatherSchema)) {
			t.Errorf("test_structured_content listed as %+v", tool)
		}
	}
}

// A 2025-03-26 session gets no title, outputSchema, structuredContent or
// resource_link: its version has none of them.
func TestContentToolsKeepToTheSessionsVersion(t *testing.T) {
	p := newPeer(t, "")
	wantServerResult(t, p.call("initialize", initParams("2025-03-26", "{}")))
	p.notify("notifications/initialized", "")
	for _, tool := range listedTools(t, p, "2025-03-26") {
		if tool.Title != "" || tool.OutputSchema != nil {
			t.Errorf("2025-03-26: %s listed with title %q and outputSchema %s", tool.Name, tool.Title, tool.OutputSchema)
		}
	}
	if r := toolResultOf(t, p.tool("test_structured_content", "{}")); r.StructuredContent != nil {
		t.Errorf("2025-03-26: structuredContent %s", r.StructuredContent)
	}
	for _, b := range blocks(t, toolResultOf(t, p.tool("test_resource_link", "{}"))) {
		if b["type"] != "text" {
			t.Errorf("2025-03-26: test_resource_link answered a %v block", b["type"])
		}
	}
}
