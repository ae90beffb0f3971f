package mcpserver

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// sentParams are the params of the first request the server (the
// reference, or mutant m) sends a 2025-11-25 client that declared caps (a
// JSON object text) while tool runs, "" without one.
func sentParams(t *testing.T, m mutant.Name, caps, tool, args string) string {
	p := newPeer(t, m).answering(replyError(jsonrpc.CodeMethodNotFound))
	p.initialize(caps)
	p.tool(tool, args)
	for _, s := range p.drain() {
		if s.Kind() == jsonrpc.KindRequest {
			return string(s.Params)
		}
	}
	return ""
}

// sampled observes whether test_sampling's request, to a client that
// declared sampling with neither tools nor context, holds what.
func sampled(what string) observer {
	return func(t *testing.T, m mutant.Name) (bool, string) {
		params := sentParams(t, m, `{"sampling":{}}`, "test_sampling", `{"prompt":"x"}`)
		return strings.Contains(params, what), params
	}
}

func init() {
	serverRuleOf[mutant.ElicitSchemaNested] = func(t *testing.T, m mutant.Name) (bool, string) {
		params := sentParams(t, m, `{"elicitation":{}}`, "test_elicitation", `{"message":"x"}`)
		return strings.Contains(params, `"address":{"properties":{"street"`), params
	}
	serverRuleOf[mutant.ElicitURLWithoutID] = func(t *testing.T, m mutant.Name) (bool, string) {
		params := sentParams(t, m, `{"elicitation":{"url":{}}}`, "elicit_url", "")
		return !strings.Contains(params, `"elicitationId"`), params
	}
	serverRuleOf[mutant.ElicitModeUndeclared] = func(t *testing.T, m mutant.Name) (bool, string) {
		params := sentParams(t, m, `{"elicitation":{"form":{}}}`, "elicit_url", "")
		return strings.Contains(params, `"mode":"url"`), params
	}
	serverRuleOf[mutant.SamplingToolsUndeclared] = sampled(`"tools"`)
	serverRuleOf[mutant.SamplingContextUndeclared] = sampled(`"includeContext"`)
	serverRuleOf[mutant.SamplingToolResultMixed] = sampled(`"tool_result"`)
}
