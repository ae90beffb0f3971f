package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/harness/instance"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
)

// maxFixtures bounds the size of a fixtures file.
const maxFixtures = 4 << 20

// schemaOf is the fixtures value that stands for another listed tool's
// inputSchema: {"$inputSchemaOf": "TOOL"} (for tools that echo a schema).
const schemaOf = "$inputSchemaOf"

// fixtures are the arguments a fixtures file gives named tools.
type fixtures map[string]map[string]any

// loadFixtures reads the fixtures file at path (YAML or JSON): an object
// mapping tool names to their arguments, or the official conformance
// suite's context ({"toolCalls":[{"name":…,"arguments":{…}}]}). An empty
// path is no file.
func loadFixtures(path string) (fixtures, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; give a readable fixtures file or unset it", target.EnvFixtures, err)
	}
	if len(b) > maxFixtures {
		return nil, fmt.Errorf("%s: %s is larger than %d bytes; a fixtures file holds tool arguments only", target.EnvFixtures, path, maxFixtures)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s does not parse as YAML or JSON (%v); write TOOL: {ARGUMENT: VALUE, …}", target.EnvFixtures, path, err)
	}
	if calls, ok := doc["toolCalls"].([]any); ok {
		return contextCalls(path, calls)
	}
	out := fixtures{}
	for name, v := range doc {
		args, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s: the arguments of tool %q are %T, not an object; write %s: {ARGUMENT: VALUE, …}", target.EnvFixtures, path, name, v, name)
		}
		out[name] = args
	}
	return out, nil
}

// contextCalls reads the official suite's toolCalls list.
func contextCalls(path string, calls []any) (fixtures, error) {
	out := fixtures{}
	for i, c := range calls {
		call, _ := c.(map[string]any)
		name, _ := call["name"].(string)
		args, ok := call["arguments"].(map[string]any)
		if name == "" || (!ok && call["arguments"] != nil) {
			return nil, fmt.Errorf("%s: %s: toolCalls[%d] needs a name and an arguments object", target.EnvFixtures, path, i)
		}
		if args == nil {
			args = map[string]any{}
		}
		out[name] = args
	}
	return out, nil
}

// arguments are the arguments tool t is called with: its fixtures entry,
// with each {"$inputSchemaOf": TOOL} replaced by that tool's inputSchema, or
// else a valid instance of its inputSchema (instance.Arguments).
func (f fixtures) arguments(t mcp.Tool, tools []mcp.Tool) (any, error) {
	args, ok := f[t.Name]
	if !ok {
		return instance.Arguments(t.InputSchema), nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		ref, isRef := v.(map[string]any)
		name, named := ref[schemaOf].(string)
		if !isRef || !named || len(ref) != 1 {
			out[k] = v
			continue
		}
		schema, found := inputSchema(tools, name)
		if !found {
			return nil, fmt.Errorf("%s: argument %q of tool %q names the inputSchema of tool %q, which the server does not list; fix the fixtures file", target.EnvFixtures, k, t.Name, name)
		}
		out[k] = schema
	}
	return out, nil
}

// inputSchema is the inputSchema of the listed tool name, as received.
func inputSchema(tools []mcp.Tool, name string) (json.RawMessage, bool) {
	for _, t := range tools {
		if t.Name == name {
			if len(bytes.TrimSpace(t.InputSchema)) == 0 {
				return json.RawMessage("{}"), true
			}
			return t.InputSchema, true
		}
	}
	return nil, false
}
