package confclient

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/harness/target"
)

// The official suite's scenarios this mode uses: what every conformance
// client implements.
const (
	// ScenarioToolsCall connects, lists the tools, calls the first with
	// the arguments {"a":2,"b":3} and closes.
	ScenarioToolsCall = "tools_call"
	// ScenarioTool is the tool the official suite's tools_call server
	// offers, which conformance clients call by name (go-sdk's, the
	// TypeScript SDK's): the fakes list their first tool under it
	// (run.Options.ToolAlias).
	ScenarioTool = "add_numbers"
)

// ProbeCase is the MCPCONFORM_CASE of mcpconform's pre-flight run.
const ProbeCase = "mcpconform.config-probe"

// Scenarios maps the checks a conformance client can drive to the scenario
// whose behaviour the check needs: one connection in the legacy era, the
// tools listed, one tool called with the scenario's arguments, no options.
// A check needs no more than that when its fake judges the wire of that
// conversation (headers, the session, the answers to what the fake sends
// during the call) or the one call's outcome.
var Scenarios = map[string]string{
	ProbeCase: ScenarioToolsCall,

	"http.client.post.accept-both":                  ScenarioToolsCall,
	"http.client.post.one-message":                  ScenarioToolsCall,
	"http.client.protocol-version-header":           ScenarioToolsCall,
	"http.client.session.id-on-every-request":       ScenarioToolsCall,
	"http.client.session.reinit-after-404":          ScenarioToolsCall,
	"http.client.session.reinit-without-session-id": ScenarioToolsCall,
	"http.client.session.no-second-retry":           ScenarioToolsCall,
	"http.client.session.stateless":                 ScenarioToolsCall,
	"http.client.close.delete":                      ScenarioToolsCall,
	"http.client.sse.exact-limit":                   ScenarioToolsCall,
	"http.client.sse.over-limit":                    ScenarioToolsCall,
	"http.client.sse.crlf-split":                    ScenarioToolsCall,
	"http.client.sse.huge-event-abandoned":          ScenarioToolsCall,
	"http.client.sse.no-reconnect-after-oversize":   ScenarioToolsCall,
	"http.client.resume.last-event-id":              ScenarioToolsCall,
	"http.client.resume.retry-delay":                ScenarioToolsCall,
	"http.client.wire.schema-valid":                 ScenarioToolsCall,
	"http.client.roots.undeclared-method-not-found": ScenarioToolsCall,
	"http.client.era.legacy-fallback":               ScenarioToolsCall,

	"client.wire.session":                  ScenarioToolsCall,
	"client.notifications.unknown-ignored": ScenarioToolsCall,
	"client.ping.answered":                 ScenarioToolsCall,
	"client.jsonrpc.answers":               ScenarioToolsCall,
	"client.jsonrpc.invalid-request":       ScenarioToolsCall,
	"client.batch.answered":                ScenarioToolsCall,
	"client.lifecycle.version-unspoken":    ScenarioToolsCall,
	"client.era.fallback":                  ScenarioToolsCall,
}

// plan returns the scenario for the check the contract's variables
// describe, or "" and why the program cannot run it.
func plan(getenv func(string) string) (scenario, why string) {
	id := getenv(target.EnvCase)
	if t := getenv(target.EnvTransport); t != "http" {
		return "", fmt.Sprintf("%s=%s: a conformance client speaks streamable HTTP only (it takes the server URL as its last argument)", target.EnvTransport, t)
	}
	scenario, ok := Scenarios[id]
	if !ok {
		return "", fmt.Sprintf("check %s needs more than a scenario of the official suite does (%s), so a conformance client cannot be driven through it", id, scenarioNames())
	}
	for _, opt := range []struct{ env, what string }{
		{target.EnvHeaders, "custom headers"},
		{target.EnvAuthToken, "a bearer token"},
		{target.EnvLimits, "limit overrides"},
	} {
		if getenv(opt.env) != "" {
			return "", fmt.Sprintf("check %s asks for %s (%s), which a conformance client cannot be given", id, opt.what, opt.env)
		}
	}
	if getenv(target.EnvParallel) == "1" {
		return "", fmt.Sprintf("check %s asks for concurrent calls (%s=1); a scenario calls one tool", id, target.EnvParallel)
	}
	if era := getenv(target.EnvEra); era != "" && era != target.EraLegacy {
		return "", fmt.Sprintf("check %s asks for the %s era (%s); a conformance client is certified in the legacy era, which its config line claims", id, era, target.EnvEra)
	}
	return scenario, ""
}

func scenarioNames() string {
	seen := map[string]bool{}
	for _, s := range Scenarios {
		seen[s] = true
	}
	var names []string
	for s := range seen {
		names = append(names, s)
	}
	sort.Strings(names)
	return "scenarios " + strings.Join(names, ", ") + ": connect, list the tools, call the first"
}
