package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

func init() {
	serverRuleOf[mutant.TemplateWithoutName] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var r struct {
			ResourceTemplates []map[string]any `json:"resourceTemplates"`
		}
		resp := p.call("resources/templates/list", "{}")
		if err := json.Unmarshal(resp.Result, &r); err != nil || len(r.ResourceTemplates) == 0 {
			t.Fatalf("resources/templates/list: %v, %s", err, resp.Result)
		}
		_, named := r.ResourceTemplates[0]["name"].(string)
		return !named, string(resp.Result)
	}
	serverRuleOf[mutant.SubscribeRefused] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		init := p.call("initialize", initParams("2025-11-25", "{}"))
		resp := p.call("resources/subscribe", `{"uri":"test://static-text"}`)
		return strings.Contains(string(init.Result), `"subscribe":true`) && resp.Error != nil, fmt.Sprintf("%+v", resp.Error)
	}
	serverRuleOf[mutant.SubscribeUndeclaredServed] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		init := p.call("initialize", initParams("2025-11-25", "{}"))
		resp := p.call("resources/subscribe", `{"uri":"test://static-text"}`)
		return !strings.Contains(string(init.Result), `"subscribe":true`) && resp.Error == nil, string(init.Result)
	}
	serverRuleOf[mutant.ListChangedUndeclared] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.call("resources/list", "{}")
		sent := methods(p.drain())
		return strings.Contains(fmt.Sprint(sent), "list_changed"), fmt.Sprint(sent)
	}
	serverRuleOf[mutant.TemplateCompletionTotalShort] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("completion/complete", `{"ref":{"type":"ref/resource","uri":"`+dataTemplate+`"},"argument":{"name":"id","value":""}}`)
		var r struct {
			Completion struct {
				Values []string `json:"values"`
				Total  int      `json:"total"`
			} `json:"completion"`
		}
		if err := json.Unmarshal(resp.Result, &r); err != nil {
			t.Fatalf("completion/complete: %v, %s", err, resp.Result)
		}
		return r.Completion.Total < len(r.Completion.Values), string(resp.Result)
	}
	serverRuleOf[mutant.LogLoggerNotString] = func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.tool("log", "")
		logs := ofMethod(p.drain(), "notifications/message")
		if len(logs) == 0 {
			t.Fatal("the log tool sent no notifications/message")
		}
		for _, l := range logs {
			if logger, present := paramsOf(t, l)["logger"]; present {
				if _, ok := logger.(string); !ok {
					return true, string(l.Params)
				}
			}
		}
		return false, string(logs[0].Params)
	}
}

// TestNotFoundInvalidParamsVariant: the variant answers a legacy
// resources/read of an unknown URI with -32602, the reference with -32002.
func TestNotFoundInvalidParamsVariant(t *testing.T) {
	for m, code := range map[mutant.Name]int64{"": jsonrpc.CodeResourceNotFound, mutant.NotFoundInvalidParams: jsonrpc.CodeInvalidParams} {
		p := newPeer(t, m)
		p.initialize("{}")
		wantServerError(t, p.call("resources/read", `{"uri":"test://mcpconform-no-such-resource"}`), code)
	}
}
