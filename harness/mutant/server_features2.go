package mutant

// Mutants of the reference server's lists, list changes, log levels,
// completions, tool arguments and resource URIs (the checks of
// suites/server/features2.go).
const (
	ToolsListOrderVaries          Name = "tools-list-order-varies"
	ListChangeUnannounced         Name = "list-change-unannounced"
	LogLevelUnknownAccepted       Name = "log-level-unknown-accepted"
	CompletionUnknownPromptServed Name = "completion-unknown-prompt-served"
	ToolArgumentsProtocolError    Name = "tool-arguments-protocol-error"
	ResourceURIInvalid            Name = "resource-uri-invalid"
)

func init() {
	registerProtocol(
		Mutant{ToolsListOrderVaries, "server", "answers every other tools/list with its tools in reverse order (TL-18)"},
		Mutant{ListChangeUnannounced, "server", "sends no list_changed notification when its trigger tools announce a change of the tool or prompt list (TL-06, PM-03)"},
		Mutant{LogLevelUnknownAccepted, "server", "serves a 2026-07-28 request whose _meta logLevel is no log level instead of answering -32602 (LG-14)"},
		Mutant{CompletionUnknownPromptServed, "server", "answers completion/complete for a prompt it does not have with no values instead of -32602 (CP-04)"},
		Mutant{ToolArgumentsProtocolError, "server", "answers a tools/call whose arguments do not fit the tool's inputSchema with -32602 instead of an isError result (TL-09)"},
		Mutant{ResourceURIInvalid, "server", "lists its first resource with a URI that has a space in it, which RFC 3986 does not allow (RS-07)"},
	)
}
