package mutant

// Mutants of the reference server that break a rule about the messages it
// sends which the MCP schema does not encode: the keys of _meta, the
// ranges of error codes, error messages, the ids of its own requests and
// what it sends before the handshake ends. server.wire.conventions kills
// each.
const (
	MetaPrefixInvalid        Name = "meta-prefix-invalid"
	MetaNameInvalid          Name = "meta-name-invalid"
	MetaPrefixReserved0618   Name = "meta-prefix-reserved-0618"
	MetaPrefixReserved       Name = "meta-prefix-reserved"
	ResultTraceparentInvalid Name = "result-traceparent-invalid"
	ServerInfoMetaMissing    Name = "server-info-meta-missing"
	ExtensionUnprefixed      Name = "extension-unprefixed"
	ErrorCodeSpecRange       Name = "error-code-spec-range"
	ErrorCodeLegacyRange     Name = "error-code-legacy-range"
	ErrorCodeReservedRange   Name = "error-code-reserved-range"
	ErrorMessageMultiline    Name = "error-message-multiline"
	URLElicitationMisused    Name = "url-elicitation-misused"
	ServerRequestIDReused    Name = "server-request-id-reused"
	NotifiesBeforeInitReply  Name = "notifies-before-initialize-reply"
	RequestsBeforeInitDone   Name = "requests-before-initialized"
	ToolSchemaDraft04        Name = "tool-schema-draft04"
)

func init() {
	registerProtocol(
		Mutant{MetaPrefixInvalid, "server", "puts a _meta key whose prefix has an empty label (mcpconform..dev/note) on its tools/list result (JR-42)"},
		Mutant{MetaNameInvalid, "server", "puts a _meta key whose name starts with a hyphen (dev.mcpconform/-note) on its tools/list result (JR-43)"},
		Mutant{MetaPrefixReserved0618, "server", "puts a _meta key of the reserved prefix modelcontextprotocol.io/ on its 2025-06-18 tools/list result (JR-44)"},
		Mutant{MetaPrefixReserved, "server", "puts a _meta key of the reserved prefix io.modelcontextprotocol/ that MCP does not define on its tools/list result (JR-45)"},
		Mutant{ResultTraceparentInvalid, "server", "puts a traceparent that is not W3C Trace Context in the _meta of its 2026-07-28 tools/list result (JR-50)"},
		Mutant{ServerInfoMetaMissing, "server", "leaves io.modelcontextprotocol/serverInfo out of its 2026-07-28 results' _meta (JR-48)"},
		Mutant{ExtensionUnprefixed, "server", "declares an extension without a prefix (mcpconform-extension) in server/discover's capabilities.extensions (LC-50)"},
		Mutant{ErrorCodeSpecRange, "server", "answers a 2026-07-28 request for an unknown method with -32050, a code of the spec's range the spec does not define (JR-29)"},
		Mutant{ErrorCodeLegacyRange, "server", "answers a 2026-07-28 request for an unknown method with -32010, a code of the legacy range (JR-28)"},
		Mutant{ErrorCodeReservedRange, "server", "answers a 2026-07-28 request for an unknown method with -32500, an application code inside the reserved range (JR-31)"},
		Mutant{ErrorMessageMultiline, "server", "answers a request for an unknown method with an error message of two lines, the second a stack frame (JR-12)"},
		Mutant{URLElicitationMisused, "server", "answers a legacy request for an unknown method with -32042 without data.elicitations (JR-26)"},
		Mutant{ServerRequestIDReused, "server", "gives every request it sends the client in a session the same id (JR-05)"},
		Mutant{NotifiesBeforeInitReply, "server", "sends notifications/tools/list_changed before its answer to initialize (LC-02)"},
		Mutant{RequestsBeforeInitDone, "server", "sends roots/list while it answers a ping that comes before notifications/initialized (LC-07)"},
		Mutant{ToolSchemaDraft04, "server", "lists the log tool with an inputSchema of draft-04 (a boolean exclusiveMinimum) that names no $schema, so it is no JSON Schema 2020-12 (JR-55)"},
	)
}
