package mutant

// Mutants of the shape of the requests the reference server sends a client
// (sampling/createMessage, elicitation/create; EL-02, EL-03, EL-05, SM-07 …
// SM-09), in package mcpserver.
const (
	ElicitSchemaNested        Name = "elicit-schema-nested"
	ElicitURLWithoutID        Name = "elicit-url-without-id"
	ElicitModeUndeclared      Name = "elicit-mode-undeclared"
	SamplingToolsUndeclared   Name = "sampling-tools-undeclared"
	SamplingContextUndeclared Name = "sampling-context-undeclared"
	SamplingToolResultMixed   Name = "sampling-tool-result-mixed"
)

func init() {
	registerProtocol(
		Mutant{ElicitSchemaNested, "server", "adds to every form it elicits a property that is a nested object, which requestedSchema may not hold (EL-05)"},
		Mutant{ElicitURLWithoutID, "server", "sends a 2025-11-25 URL-mode elicitation without its elicitationId (EL-03)"},
		Mutant{ElicitModeUndeclared, "server", "sends a URL-mode elicitation to a client that declared form mode only (EL-02)"},
		Mutant{SamplingToolsUndeclared, "server", "sends tools and toolChoice in every sampling request, whether or not the client declared sampling.tools (SM-07)"},
		Mutant{SamplingContextUndeclared, "server", "asks for includeContext thisServer in every sampling request, whether or not the client declared sampling.context (SM-08)"},
		Mutant{SamplingToolResultMixed, "server", "samples a conversation whose tool_result message also holds a text block (SM-09)"},
	)
}
