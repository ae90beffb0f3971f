package mutant

// Mutants of the reference MCP server (package mcpserver), its stdio server
// transport and the serve command (mcpconform serve --mutant NAME, either
// transport). Each breaks the one rule its description names.
const (
	UnknownVersionEchoed          Name = "unknown-version-echoed"
	NoPingBeforeInit              Name = "no-ping-before-init"
	ParseErrorWithID              Name = "parse-error-with-id"
	InvalidRequestAsMethodMissing Name = "invalid-request-as-method-not-found"
	AnswersNotifications          Name = "answers-notifications"
	IDTypeChanged                 Name = "id-type-changed"
	InvalidCursorAccepted         Name = "invalid-cursor-accepted"
	UnknownToolNotError           Name = "unknown-tool-not-error"
	ToolFailureAsRPCError         Name = "tool-failure-as-rpc-error"
	LogBelowThreshold             Name = "log-below-threshold"
	InvalidLevelAccepted          Name = "invalid-level-accepted"
	ProgressWithoutToken          Name = "progress-without-token"
	ProgressNotIncreasing         Name = "progress-not-increasing"
	ProgressAfterResponse         Name = "progress-after-response"
	AnswersCancelledRequest       Name = "answers-cancelled-request"
	UnknownCancelAnswered         Name = "unknown-cancel-crashes"
	SamplingWithoutCapability     Name = "sampling-without-capability"
	ElicitationWithoutCapability  Name = "elicitation-without-capability"
	RootsWithoutCapability        Name = "roots-without-capability"
	ReverseRequestNoTimeout       Name = "reverse-request-no-timeout"
	StdoutBanner                  Name = "stdout-banner"
	IgnoresStdinEOF               Name = "ignores-stdin-eof"
	IgnoresSIGTERM                Name = "ignores-sigterm"
	InitializeNoServerInfo        Name = "initialize-no-server-info"
	PingResultNotEmpty            Name = "ping-result-not-empty"
	UnknownMethodWrongCode        Name = "unknown-method-wrong-code"
	PaginationRepeats             Name = "pagination-repeats"
	LogLevelMalformed             Name = "log-level-malformed"
	PromptsCursorIgnored          Name = "prompts-cursor-ignored"
	ReverseErrorDropsCall         Name = "reverse-error-drops-call"
	ElicitDeclineDropsCall        Name = "elicit-decline-drops-call"
	LoggingUndeclared             Name = "logging-undeclared"
	ReusedIDDropped               Name = "reused-id-dropped"
)

// serverProtocol are the mutants of the reference MCP server, its stdio
// transport and its command, as opposed to those of the streamable HTTP
// server transport.
var serverProtocol = []Mutant{
	{UnknownVersionEchoed, "server", "echoes a proposed protocol version it does not speak instead of answering with one it does (LC-09)"},
	{NoPingBeforeInit, "server", "refuses ping before initialize (PG-01, PG-02)"},
	{ParseErrorWithID, "server", "answers an unparseable stdio line with a parse error that carries id 0 instead of null (JR-20, JR-10)"},
	{InvalidRequestAsMethodMissing, "server", "answers an invalid request on stdio with -32601 instead of -32600 (JR-21)"},
	{AnswersNotifications, "server", "answers a notification it does not know with a -32601 error (JR-14)"},
	{IDTypeChanged, "server", "answers a numeric id as a string and a numeric string id as a number (JR-07)"},
	{InvalidCursorAccepted, "server", "serves the first page for a cursor it never issued instead of -32602 (PA-03)"},
	{UnknownToolNotError, "server", "answers a call of an unknown tool with an isError result instead of -32602 (TL-08)"},
	{ToolFailureAsRPCError, "server", "reports a tool's own failure as a JSON-RPC error instead of an isError result (TL-08)"},
	{LogBelowThreshold, "server", "sends log messages less severe than the level set with logging/setLevel (CX-02, LG-04)"},
	{InvalidLevelAccepted, "server", "accepts logging/setLevel with a level that is not one of the eight (LG-06, LG-02)"},
	{ProgressWithoutToken, "server", "sends progress for a request that carried no progressToken (CX-03, PR-06)"},
	{ProgressNotIncreasing, "server", "sends a progress value that does not exceed the previous one (CX-03, PR-03)"},
	{ProgressAfterResponse, "server", "sends a progress notification for a request after its response (CX-03, PR-08)"},
	{AnswersCancelledRequest, "server", "answers a request the client cancelled (CX-04, CN-04)"},
	{UnknownCancelAnswered, "server", "answers notifications/cancelled for an unknown id with an error (CX-04, CN-05, CN-08)"},
	{SamplingWithoutCapability, "server", "sends sampling/createMessage to a client that did not declare sampling (CX-08, LC-11)"},
	{ElicitationWithoutCapability, "server", "sends elicitation/create in a mode the client did not declare (CX-08, EL-02, LC-11)"},
	{RootsWithoutCapability, "server", "sends roots/list to a client that did not declare roots (CX-08, LC-11, RT-07)"},
	{ReverseRequestNoTimeout, "server", "waits for the client's reply to its own requests without a timeout (CX-08, LC-30)"},
	{StdoutBanner, "server", "writes a banner line on stdout before its first stdio reply (ST-03); no effect over HTTP"},
	{IgnoresStdinEOF, "server", "keeps running after stdin reaches its end (LC-21)"},
	{IgnoresSIGTERM, "server", "ignores SIGTERM (LC-20)"},
	{InitializeNoServerInfo, "server", "leaves serverInfo out of the initialize result (LC-04)"},
	{PingResultNotEmpty, "server", "answers ping with a non-empty result (PG-02)"},
	{UnknownMethodWrongCode, "server", "answers an unknown method with -32600 instead of -32601 (JR-22)"},
	{LogLevelMalformed, "server", "sends notifications/message with a level that is not one of the eight (LG-02, LG-07)"},
	{PaginationRepeats, "server", "starts each next page one item early, so a walk lists items twice (PA-01, PA-03)"},
	{PromptsCursorIgnored, "server", "ignores the cursor of prompts/list and serves the first page again, so a walk never ends (PA-01, PA-03)"},
	{ReverseErrorDropsCall, "server", "drops the tool call without any response when the client answers its sampling, elicitation or roots request with an error (CX-05)"},
	{ElicitDeclineDropsCall, "server", "drops the tool call without any response when the user declines or cancels its elicitation (CX-06, EL-07)"},
	{LoggingUndeclared, "server", "serves logging/setLevel and sends notifications/message without declaring the logging capability (LG-01, LC-11)"},
	{ReusedIDDropped, "server", "silently drops a request that reuses the id of a finished one: it gets no response (JR-07)"},
}

func init() { registerProtocol(serverProtocol...) }

// protocol are the mutants of the reference MCP server, its stdio transport
// and the serve command: what registerProtocol added.
var protocol []Mutant

// register adds mutants of a reference client or a transport to the
// catalogue: a file that declares one calls it from its init.
func register(ms ...Mutant) { catalogue = append(catalogue, ms...) }

// registerProtocol adds mutants of the reference MCP server (package
// mcpserver), its stdio transport or the serve command to the catalogue: a
// file that declares one calls it from its init.
func registerProtocol(ms ...Mutant) {
	register(ms...)
	protocol = append(protocol, ms...)
}

// OfServerProtocol reports whether n mutates (or varies) the reference MCP
// server, its stdio transport or the serve command; the other server
// mutants and variants change the streamable HTTP server transport.
func OfServerProtocol(n Name) bool {
	for _, m := range protocol {
		if m.Name == n {
			return true
		}
	}
	v, ok := LookupVariant(n)
	return ok && v.Role == "server" && v.Transport == "any"
}
