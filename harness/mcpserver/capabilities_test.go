package mcpserver

import (
	"encoding/json"
	"testing"
)

func TestServerDeclaresWhatItServes(t *testing.T) {
	p := newPeer(t, "")
	var init struct {
		Capabilities map[string]json.RawMessage
	}
	if err := json.Unmarshal(p.call("initialize", initParams("2025-11-25", "{}")).Result, &init); err != nil {
		t.Fatal(err)
	}
	p.notify("notifications/initialized", "")
	for _, c := range []struct{ method, params, capability string }{
		{"tools/list", "", "tools"},
		{"resources/list", "", "resources"},
		{"resources/templates/list", "", "resources"},
		{"prompts/list", "", "prompts"},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"pa"}}`, "completions"},
		{"logging/setLevel", `{"level":"debug"}`, "logging"},
	} {
		wantServerResult(t, p.call(c.method, c.params))
		if init.Capabilities[c.capability] == nil {
			t.Errorf("%s is served but capability %q is not declared (%v)", c.method, c.capability, init.Capabilities)
		}
	}
}
