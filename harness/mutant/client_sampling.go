package mutant

// Mutants of how the reference client answers the 2025-11-25 requests of a
// server: tool-enabled sampling, elicitation without mode and completions
// of elicitations it never got; and its progress on a server request
// (package mcpclient).
const (
	SamplingToolsUndeclaredAnswered Name = "sampling-tools-undeclared-answered"
	SamplingToolResultsUnchecked    Name = "sampling-tool-results-unchecked"
	ElicitationModeRequired         Name = "elicitation-mode-required"
	ElicitationCompleteUnknownFatal Name = "elicitation-complete-unknown-fatal"
	ClientProgressAfterResponse     Name = "client-progress-after-response"
)

var clientSampling = []Mutant{
	{SamplingToolsUndeclaredAnswered, "client", "answers a sampling/createMessage with tools and toolChoice with its sample though it did not declare sampling.tools, instead of an error (SM-07)"},
	{SamplingToolResultsUnchecked, "client", "answers a tool-enabled sampling/createMessage whose tool results are missing or mixed with text with its sample instead of -32602 (SM-10)"},
	{ElicitationModeRequired, "client", "refuses an elicitation/create without mode with -32602 instead of answering it as the form it is (EL-04)"},
	{ElicitationCompleteUnknownFatal, "client", "ends the session on a notifications/elicitation/complete for an elicitation id it never got instead of ignoring it (EL-13)"},
	{ClientProgressAfterResponse, "client", "sends the last notifications/progress of its answer to a server request that carried a progress token after the answer instead of before it (PR-08)"},
}

func init() { register(clientSampling...) }
