package client

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What a client declares once it is told how to answer a server's
// requests: SM-01, EL-01, RT-01.

// answerCapabilities are the capabilities the answers of
// allAnswers declare, each with the rule that asks for its declaration.
var answerCapabilities = []struct{ name, rule string }{
	{"sampling", "SM-01"},
	{"elicitation", "EL-01"},
	{"roots", "RT-01"},
}

// allAnswers tells the client how to answer each of a server's requests.
var allAnswers = target.Answers{Sampling: sampleResult, Elicitation: target.ElicitAccept, Roots: sharedRoots}

var _ = clientCheck(check.Descriptor{
	ID:    "client.capabilities.declared",
	Title: "a client told how to answer sampling, elicitation and roots declares them, in 2026-07-28 in every request, elicitation with a mode",
	Requirement: "A client that supports sampling, elicitation or roots declares it: at initialize, and in the 2026-07-28 era in the capabilities of every request it sends; " +
		"from 2025-11-25 its elicitation capability is empty (form) or names form and/or url.",
	Rules:    []string{"SM-01", "EL-01", "RT-01"},
	Eras:     check.BothEras,
	KilledBy: []mutant.Name{mutant.CapabilitiesDroppedOnRetry},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		r := askClient(c, t, allAnswers)
		if !r.asked[fakeservers.KeySample] && !r.asked[fakeservers.KeyForm] && !r.asked[fakeservers.KeyRoots] {
			c.Unimplemented(fmt.Sprintf("over %s the client, told %s, %s and %s, declared none of them (it declared %s); to be certified, declare each capability whose answer it is given",
				t, target.EnvSampling, target.EnvElicitation, target.EnvRoots, declaredNames(r.caps)))
		}
		if r.version >= "2025-11-25" {
			problem := elicitationModes(r.caps["elicitation"])
			c.RequireRule("EL-01", problem == "", "an elicitation capability that is empty (form mode) or names form and/or url",
				"over %s (%s) the client declared elicitation %s: %s", t, r.version, r.caps["elicitation"], problem)
		}
		if !r.modern {
			return
		}
		var requests []*jsonrpc.Message
		for _, m := range r.Sent {
			if m.Kind() == jsonrpc.KindRequest {
				requests = append(requests, m)
			}
		}
		for _, want := range answerCapabilities {
			if _, ok := r.caps[want.name]; !ok {
				continue
			}
			for _, m := range requests {
				_, ok := fakeservers.Capabilities(m)[want.name]
				c.RequireRule(want.rule, ok, fmt.Sprintf("%s in the capabilities of every 2026-07-28 request, as in the client's first tools/call", want.name),
					"over %s the client's %s (id %s) declared %s", t, m.Method, m.ID, declaredNames(fakeservers.Capabilities(m)))
			}
		}
	})
})

// elicitationModes says what is wrong with a declared elicitation
// capability of 2025-11-25 or later ("" for nothing, or none declared):
// an object, empty (form mode) or naming form and/or url among its keys.
func elicitationModes(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var modes map[string]json.RawMessage
	if json.Unmarshal(raw, &modes) != nil || modes == nil {
		return "not an object"
	}
	if _, form := modes["form"]; form || len(modes) == 0 {
		return ""
	}
	if _, url := modes["url"]; url {
		return ""
	}
	return "it names neither form nor url (" + strings.Join(slices.Sorted(maps.Keys(modes)), ", ") + "), so no mode is supported"
}
