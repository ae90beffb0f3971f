package mutant

// Mutants of how the reference client answers what a server sends it in a
// session (package mcpclient): the ids, shapes and codes of its responses,
// bad params, stale cancellations, and no responses at all in 2026-07-28.
const (
	IDEchoedAsString           Name = "id-echoed-as-string"
	ResultNotObject            Name = "result-not-object"
	UnknownMethodInternalError Name = "unknown-method-internal-error"
	ClientErrorMultiline       Name = "client-error-message-multiline"
	StaleCancelAnswered        Name = "stale-cancel-answered"
	StaleCancelFatal           Name = "stale-cancel-fatal"
	ModernInputAnswered        Name = "modern-input-answered"
	SamplingParamsUnchecked    Name = "sampling-params-unchecked"
)

var clientAnswers = []Mutant{
	{IDEchoedAsString, "client", "answers a request whose id is an integer with that id as a string, 7 as \"7\" (JR-07)"},
	{ResultNotObject, "client", "answers a ping with the result \"pong\", a string, instead of an object (JR-09)"},
	{UnknownMethodInternalError, "client", "answers a request of a method it does not know with -32603 (internal error) instead of -32601 (JR-22)"},
	{ClientErrorMultiline, "client", "answers with error messages of two lines, the second a stack frame (JR-12)"},
	{StaleCancelAnswered, "client", "answers a notifications/cancelled for a request it is not handling with error -32602 under the id it names (CN-08)"},
	{StaleCancelFatal, "client", "ends the session on a notifications/cancelled for a request it is not handling (CN-07)"},
	{SamplingParamsUnchecked, "client", "answers a sampling/createMessage without messages with its sample instead of -32602 (JR-23)"},
	{ModernInputAnswered, "client", "in 2026-07-28 also sends each answer to an input request as a JSON-RPC response whose id is the request's key (JR-17, ST-12)"},
}

func init() { register(clientAnswers...) }
