package fakeservers

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// The output-schema case's results read under JSON Schema 2020-12 as the
// client check expects: the tuple valid only by prefixItems, the two
// broken ones broken, the unknown dialect and the remote $ref never
// compiled.
func TestOutputSchemaResultsAsIntended(t *testing.T) {
	tools, schemas := OutputSchemaOffer(true, "http://127.0.0.1:9")
	if len(tools) != 6 || tools[0] != ToolEcho || tools[1] != ToolSchemaDialect {
		t.Fatalf("tools = %v; want echo, then %s before the others", tools, ToolSchemaDialect)
	}
	if legacy, _ := OutputSchemaOffer(false, "http://127.0.0.1:9"); len(legacy) != 5 {
		t.Errorf("legacy tools = %v; want no %s", legacy, ToolSchemaRemoteRef)
	}
	for name, want := range map[string]error{ToolSchemaDialect: wireschema.ErrUnsupportedDialect, ToolSchemaRemoteRef: wireschema.ErrOutsideDocument} {
		raw, _ := json.Marshal(schemas[name])
		if _, err := wireschema.CompileToolSchema(raw); !errors.Is(err, want) {
			t.Errorf("%s: compile = %v; want %v", name, err, want)
		}
	}
	for name, valid := range map[string]bool{ToolSchemaTupleValid: true, ToolSchemaCountInvalid: false, ToolSchemaTupleInvalid: false} {
		raw, _ := json.Marshal(schemas[name])
		s, err := wireschema.CompileToolSchema(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		reply := OutputSchemaResult(ToolCall{Req: &jsonrpc.Message{ID: jsonrpc.IntID(1)}, Name: name})
		var res struct {
			Content           []TextContent   `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(reply.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != string(res.StructuredContent) {
			t.Errorf("%s: result %s; want structuredContent mirrored in one text block (%v)", name, reply.Result, err)
		}
		if why := s.Validate(res.StructuredContent); (why == "") != valid {
			t.Errorf("%s: Validate(%s) = %q; want valid %v", name, res.StructuredContent, why, valid)
		}
	}
}
