package fakeservers

import (
	"encoding/json"
	"maps"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The output-schema case: tools that declare an outputSchema and return
// structuredContent, each probing one part of how a client validates it
// (TL-12, JR-55 … JR-57). Every result carries its structuredContent's JSON
// in a text block too (TL-11).

// OutputSchemaCase describes the output-schema case of both fakes.
const OutputSchemaCase = "offers echo, then tools whose outputSchema the client is to validate their structuredContent against: " +
	"schema-dialect ($schema a dialect no validator knows), schema-tuple-valid (valid only under JSON Schema 2020-12's prefixItems), " +
	"schema-count-invalid (breaks its schema plainly), schema-tuple-invalid (breaks it only under 2020-12) and, in 2026-07-28 with --ref-url, " +
	"schema-remote-ref (a $ref to a URL on the check's own listener)"

// Tools of the output-schema case, in the order it lists them: the one
// whose dialect no client supports comes early, so that a client handling
// it gracefully goes on to the others (JR-56).
const (
	ToolSchemaDialect      = "schema-dialect"
	ToolSchemaTupleValid   = "schema-tuple-valid"
	ToolSchemaCountInvalid = "schema-count-invalid"
	ToolSchemaTupleInvalid = "schema-tuple-invalid"
	ToolSchemaRemoteRef    = "schema-remote-ref"
)

// UnknownDialect is the $schema of ToolSchemaDialect: a dialect no
// validator knows, under a domain that never resolves.
const UnknownDialect = "https://json-schema.mcpconform.invalid/unknown-dialect"

// RemoteRefPath is where, under the --ref-url it is given, the outputSchema
// of ToolSchemaRemoteRef refers to with $ref (JR-57).
const RemoteRefPath = "/mcpconform-item.schema.json"

// tupleSchema reads differently per dialect: under 2020-12 prefixItems
// holds the first item to a string and items the rest to integers; a
// validator of an earlier draft ignores prefixItems and holds every item
// to integers.
var tupleSchema = map[string]any{
	"type":     "object",
	"required": []string{"pair"},
	"properties": map[string]any{"pair": map[string]any{
		"type": "array", "prefixItems": []any{map[string]any{"type": "string"}}, "items": map[string]any{"type": "integer"},
	}},
}

var countSchema = map[string]any{
	"type":       "object",
	"required":   []string{"count"},
	"properties": map[string]any{"count": map[string]any{"type": "integer"}},
}

// OutputSchemaOffer is what the output-schema case offers: its tools in
// order and their output schemas. Only in the 2026-07-28 era, and given
// refURL, does it offer ToolSchemaRemoteRef (JR-57 binds that era alone).
func OutputSchemaOffer(modern bool, refURL string) ([]string, map[string]map[string]any) {
	tools := []string{ToolEcho, ToolSchemaDialect, ToolSchemaTupleValid, ToolSchemaCountInvalid, ToolSchemaTupleInvalid}
	dialect := maps.Clone(countSchema)
	dialect["$schema"] = UnknownDialect
	schemas := map[string]map[string]any{
		ToolSchemaDialect:      dialect,
		ToolSchemaTupleValid:   tupleSchema,
		ToolSchemaCountInvalid: countSchema,
		ToolSchemaTupleInvalid: tupleSchema,
	}
	if modern && refURL != "" {
		tools = append(tools, ToolSchemaRemoteRef)
		schemas[ToolSchemaRemoteRef] = map[string]any{
			"type":       "object",
			"required":   []string{"item"},
			"properties": map[string]any{"item": map[string]any{"$ref": refURL + RemoteRefPath}},
		}
	}
	return tools, schemas
}

// structured is the structuredContent each tool of the output-schema case
// returns.
var structured = map[string]any{
	ToolSchemaDialect:      map[string]any{"count": 3},
	ToolSchemaTupleValid:   map[string]any{"pair": []any{"a", 1, 2}},
	ToolSchemaCountInvalid: map[string]any{"count": "three"},
	ToolSchemaTupleInvalid: map[string]any{"pair": []any{1, 2}},
	ToolSchemaRemoteRef:    map[string]any{"item": map[string]any{"name": "x"}},
}

// OutputSchemaResult answers call c of the output-schema case: the tool's
// structuredContent with its JSON in a text block; echo's plain result.
func OutputSchemaResult(c ToolCall) *jsonrpc.Message {
	sc, ok := structured[c.Name]
	if !ok {
		return c.OK()
	}
	text, err := json.Marshal(sc)
	if err != nil {
		panic("fakeservers: encode structuredContent: " + err.Error())
	}
	return ResultMessage(c.Req.ID, CallResult{Content: []TextContent{{Type: "text", Text: string(text)}}, StructuredContent: sc, ResultType: c.ResultType()})
}
