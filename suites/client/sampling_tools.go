package client

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Tool-enabled sampling (2025-11-25): a client that declared sampling
// without sampling.tools refuses a request with tools, and one that
// declared sampling.tools refuses messages whose tool results are missing
// or mixed with other content. Judged in the legacy era, where a refusal
// is a JSON-RPC error; 2026-07-28's inputResponses have no place for one.

var _ = clientCheck(check.Descriptor{
	ID:    "client.sampling.tools",
	Title: "a sampling request with tools is refused unless the client declared sampling.tools; with it, missing or mixed tool results are refused with -32602",
	Requirement: "Version 2025-11-25: a client that declared sampling without sampling.tools answers a sampling/createMessage with tools and toolChoice with an error (SM-07); " +
		"one that declared sampling.tools answers a request whose user message mixes a tool_result with text, or whose assistant tool_use has no tool_result after it, " +
		"with -32602 (SM-10).",
	Rules:    []string{"SM-07", "SM-10"},
	KilledBy: []mutant.Name{mutant.SamplingToolsUndeclaredAnswered, mutant.SamplingToolResultsUnchecked},
}, func(c *run.C) {
	eachTransport(c, func(t check.Transport) {
		judged := false
		r := askClient(c, t, target.Answers{Sampling: sampleResult})
		if r.asked[fakeservers.KeySampleTools] {
			m, ok := r.answers[fakeservers.KeySampleTools]
			c.RequireRule("SM-07", ok && m.Error != nil, fmt.Sprintf("an error for the sampling/createMessage %s with tools and toolChoice, since the client declared sampling without sampling.tools",
				fakeservers.ReplyID(fakeservers.KeySampleTools)), "over %s the client answered %s", t, answerOrNone(m, ok))
			judged = true
		}
		r = askClient(c, t, target.Answers{Sampling: sampleResult, SamplingTools: true})
		for _, key := range []string{fakeservers.KeySampleMixed, fakeservers.KeySampleUnanswered} {
			if !r.asked[key] {
				continue
			}
			m, ok := r.answers[key]
			c.RequireRule("SM-10", ok && m.Error != nil && m.Error.Code == jsonrpc.CodeInvalidParams, fmt.Sprintf("error -32602 for the tool-enabled sampling/createMessage %s, %s",
				fakeservers.ReplyID(key), toolResultFault[key]), "over %s the client answered %s", t, answerOrNone(m, ok))
			judged = true
		}
		if !judged {
			c.Unimplemented(fmt.Sprintf("over %s the client, told %s (and %s=1), spoke version %s and declared %s: to be certified, speak %s, declare sampling when %s is set "+
				"and sampling.tools only when %s=1 too", t, target.EnvSampling, target.EnvSamplingTools, r.version, declaredNames(r.caps),
				fakeservers.ToolsVersion, target.EnvSampling, target.EnvSamplingTools))
		}
	})
})

// toolResultFault says what is wrong with the tool results of the requests
// a client that declared sampling.tools refuses.
var toolResultFault = map[string]string{
	fakeservers.KeySampleMixed:      "whose user message mixes a tool_result with text",
	fakeservers.KeySampleUnanswered: "whose assistant tool_use is followed by a user message without its tool_result",
}
