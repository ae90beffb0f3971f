package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// maxCompletionValues is the most values one completion result holds (CP-03).
const maxCompletionValues = 100

// completionCandidates are the values offered for each completable argument,
// by prompt name or template URI, then argument name.
var completionCandidates = map[string]map[string][]string{
	"test_prompt_with_arguments": {
		"arg1": {"paris", "park", "party", "pasta", "zebra"},
		"arg2": {"hello", "help", "world"},
	},
	"test_prompt_with_embedded_resource": {
		"resourceUri": {"test://static-text", "test://static-binary", "test://watched-resource"},
	},
	dataTemplate: {
		"id": {"1", "2", "3", "42", "123"},
	},
}

// complete answers completion/complete (CP-02) with the candidates of the
// argument that start with its value, at most 100 (CP-03). A ref to an
// unknown prompt or template, or an argument it does not have, gets -32602
// (CP-04).
func complete(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil {
		return nil, mcp.InvalidParams("completion/complete needs params with a ref and an argument {name, value}")
	}
	var target string
	switch p.Ref.Type {
	case "ref/prompt":
		if findPrompt(p.Ref.Name) == nil && rc.srv.opts.Mutant == mutant.CompletionUnknownPromptServed {
			return map[string]any{"completion": map[string]any{"values": []string{}}}, nil
		}
		if findPrompt(p.Ref.Name) == nil {
			return nil, mcp.InvalidParams(fmt.Sprintf("unknown prompt %q; prompts/list names the prompts", p.Ref.Name))
		}
		target = p.Ref.Name
	case "ref/resource":
		if p.Ref.URI != dataTemplate {
			return nil, mcp.InvalidParams(fmt.Sprintf("no resource template %q; resources/templates/list names them", p.Ref.URI))
		}
		target = p.Ref.URI
	default:
		return nil, mcp.InvalidParams(fmt.Sprintf("ref type %q is neither ref/prompt nor ref/resource", p.Ref.Type))
	}
	candidates, ok := completionCandidates[target][p.Argument.Name]
	if !ok && !hasArgument(target, p.Argument.Name) {
		return nil, mcp.InvalidParams(fmt.Sprintf("%q has no argument %q", target, p.Argument.Name))
	}
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, p.Argument.Value) {
			values = append(values, c)
		}
	}
	if rc.srv.opts.Mutant == mutant.CompletionValuesUnbounded {
		for i := len(values); i <= maxCompletionValues; i++ {
			values = append(values, fmt.Sprintf("%s%d", p.Argument.Value, i))
		}
		return map[string]any{"completion": map[string]any{"values": values}}, nil
	}
	total := len(values)
	values = values[:min(total, maxCompletionValues)]
	if rc.srv.opts.Mutant == mutant.TemplateCompletionTotalShort && p.Ref.Type == "ref/resource" && total > 0 {
		total--
	}
	return map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": total > len(values)}}, nil
}

// hasArgument reports whether prompt target has an argument name.
func hasArgument(target, name string) bool {
	prompt := findPrompt(target)
	return prompt != nil && slices.ContainsFunc(prompt.Arguments, func(a PromptArgument) bool { return a.Name == name })
}
