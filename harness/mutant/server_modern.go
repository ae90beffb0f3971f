package mutant

// Mutants of the reference server's 2026-07-28 era: the MCP server (package
// mcpserver) and the streamable HTTP server transport's modern path.
const (
	DiscoverNoSupportedVersions     Name = "discover-no-supported-versions"
	ResultTypeMissing               Name = "result-type-missing"
	UnsupportedVersionInvalidParams Name = "unsupported-version-invalid-params"
	UnsupportedVersionStatus200     Name = "unsupported-version-200"
	MissingMetaAccepted             Name = "missing-meta-accepted"
	HeaderMismatchAccepted          Name = "header-mismatch-accepted"
	MirrorHeadersUnchecked          Name = "mirror-headers-unchecked"
	CapabilityNeededAsResult        Name = "capability-needed-as-result"
	LogsWithoutLevel                Name = "logs-without-level"
)

// modernProtocol mutate the reference MCP server; they count as
// OfServerProtocol.
var modernProtocol = []Mutant{
	{DiscoverNoSupportedVersions, "server", "answers server/discover without supportedVersions (LC-41)"},
	{ResultTypeMissing, "server", "leaves resultType out of its 2026-07-28 results (JR-15, LC-41)"},
	{UnsupportedVersionInvalidParams, "server", "answers a request naming a version it does not serve with -32602 instead of -32022 (LC-42)"},
	{MissingMetaAccepted, "server", "serves a 2026-07-28 request whose _meta lacks clientCapabilities instead of answering -32602 (JR-47)"},
	{CapabilityNeededAsResult, "server", "answers a 2026-07-28 tool call that needs an undeclared client capability with an isError result instead of -32021 (JR-49)"},
	{LogsWithoutLevel, "server", "sends log notifications for a 2026-07-28 request whose _meta names no logLevel (LG-12)"},
}

// modernTransport mutate the streamable HTTP server transport.
var modernTransport = []Mutant{
	{UnsupportedVersionStatus200, "server", "sends the -32022 answer to an HTTP request with status 200 instead of 400 (LC-42, HT-74)"},
	{HeaderMismatchAccepted, "server", "serves a 2026-07-28 POST whose MCP-Protocol-Version header differs from its _meta version instead of 400 with -32020 (HT-74)"},
	{MirrorHeadersUnchecked, "server", "serves a 2026-07-28 POST whose Mcp-Method or Mcp-Name header is missing or differs from the body instead of 400 with -32020 (HT-81)"},
}

func init() {
	registerProtocol(modernProtocol...)
	register(modernTransport...)
}
