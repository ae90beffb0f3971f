package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// blocks decodes a result's content blocks.
func blocks(t *testing.T, r mcp.CallToolResult) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(r.Content))
	for i, c := range r.Content {
		if err := json.Unmarshal(c, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestFixtureToolsAnswerTheirContent(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	for name, want := range map[string][]string{
		"test_simple_text":            {"text"},
		"test_image_content":          {"image"},
		"test_audio_content":          {"audio"},
		"test_embedded_resource":      {"resource"},
		"test_multiple_content_types": {"text", "image", "resource"},
		"test_tool_with_logging":      {"text"},
		"test_tool_with_progress":     {"text"},
	} {
		r := toolResultOf(t, p.tool(name, "{}"))
		bs := blocks(t, r)
		if r.IsError || len(bs) != len(want) {
			t.Fatalf("%s: %+v", name, r)
		}
		for i, b := range bs {
			if b["type"] != want[i] {
				t.Errorf("%s block %d is %v, want %s", name, i, b["type"], want[i])
			}
			if data, ok := b["data"].(string); ok {
				raw, err := base64.StdEncoding.DecodeString(data)
				if err != nil || len(raw) < 8 || (b["mimeType"] != "image/png" && b["mimeType"] != "audio/wav") {
					t.Errorf("%s block %d: %v, %v", name, i, b["mimeType"], err)
				}
			}
		}
	}
	p.drain()
}

func TestToolsListHasValidSchemas(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range serverTools {
		var s struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil || s.Type != "object" || tool.Description == "" || seen[tool.Name] {
			t.Errorf("tool %s: schema %s (%v), description %q", tool.Name, tool.InputSchema, err, tool.Description)
		}
		seen[tool.Name] = true
	}
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	wantServerError(t, p.tool("no_such_tool", "{}"), jsonrpc.CodeInvalidParams)
}

func TestFailingToolAnswersIsError(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	wantIsError(t, p.tool("test_error_handling", "{}"), "intentionally")
	// Arguments that do not fit the schema are the tool's failure (TL-09).
	wantIsError(t, p.tool("test_sampling", `{"prompt":5}`), "prompt")
	wantIsError(t, p.tool("slow", `{"ms":-1}`), "ms")
	wantIsError(t, p.tool("progress", `{"steps":0}`), "steps")
}

func TestSlowAnswersAtItsBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeerWith(t, Options{SlowBound: 2 * time.Second})
		p.initialize("{}")
		start := time.Now()
		r := toolResultOf(t, p.tool("slow", `{"ms":60000}`))
		if took := time.Since(start); r.IsError || took != 2*time.Second {
			t.Fatalf("slow answered %q after %v, want a result after the 2s bound", textOf(r), took)
		}
		start = time.Now()
		r = toolResultOf(t, p.tool("slow", `{}`))
		if took := time.Since(start); r.IsError || took != 2*time.Second {
			t.Fatalf("slow without ms answered %q after %v, want a result after the 2s bound", textOf(r), took)
		}
		start = time.Now()
		r = toolResultOf(t, p.tool("slow", `{"ms":500}`))
		if took := time.Since(start); r.IsError || took != 500*time.Millisecond {
			t.Fatalf("slow answered %q after %v, want 500ms", textOf(r), took)
		}
		if sent := p.drain(); len(ofMethod(sent, "notifications/progress")) != 0 {
			t.Fatalf("slow without a token sent %v", methods(sent))
		}
	})
}

func TestLogToolLogsEveryLevel(t *testing.T) {
	p := newPeer(t, "")
	p.initialize("{}")
	wantServerResult(t, p.call("logging/setLevel", `{"level":"debug"}`))
	p.tool("log", "")
	var levels []string
	for _, m := range ofMethod(p.drain(), "notifications/message") {
		levels = append(levels, paramsOf(t, m)["level"].(string))
	}
	if strings.Join(levels, ",") != strings.Join(logLevels, ",") {
		t.Fatalf("levels %v, want %v", levels, logLevels)
	}
}

func TestJSONSchema2020ToolKeepsItsSchema(t *testing.T) {
	p := newPeerWith(t, Options{PageSize: 100})
	p.initialize("{}")
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(p.call("tools/list", "").Result, &list); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	for _, tool := range list.Tools {
		if tool.Name == "json_schema_2020_12_tool" {
			got = tool.InputSchema
		}
	}
	if got == nil {
		t.Fatal("tools/list does not offer json_schema_2020_12_tool")
	}
	defs, _ := got["$defs"].(map[string]any)
	address, _ := defs["address"].(map[string]any)
	fields, _ := address["properties"].(map[string]any)
	props, _ := got["properties"].(map[string]any)
	ref, _ := props["address"].(map[string]any)
	if got["$schema"] != "https://json-schema.org/draft/2020-12/schema" || got["additionalProperties"] != false ||
		fields["street"] == nil || fields["city"] == nil || ref["$ref"] != "#/$defs/address" {
		t.Fatalf("inputSchema %v lost its 2020-12 keywords", got)
	}
	for args, want := range map[string]string{
		`{"name": "Ada", "address": {"street": "1 Main St", "city": "Springfield"}}`: `Arguments: {"name":"Ada","address":{"street":"1 Main St","city":"Springfield"}}`,
		``:     `Arguments: {}`,
		`null`: `Arguments: {}`,
	} {
		if r := toolResultOf(t, p.tool("json_schema_2020_12_tool", args)); r.IsError || textOf(r) != want {
			t.Errorf("arguments %s: %q, want %q", args, textOf(r), want)
		}
	}
}
