package mutant

// Mutants of the reference client's 2026-07-28 era (package mcpclient and
// the streamable HTTP client's modern path), and of its era choice.
const (
	NoEraFallback             Name = "no-era-fallback"
	ModernNoMeta              Name = "modern-no-meta"
	ModernHeaderMismatch      Name = "modern-header-mismatch"
	ModernParamHeaderRaw      Name = "modern-param-header-raw"
	InvalidHeaderToolKept     Name = "invalid-header-tool-kept"
	MRTRSameID                Name = "mrtr-same-id"
	MRTRStateAltered          Name = "mrtr-state-altered"
	MRTRStateReused           Name = "mrtr-state-reused"
	MRTRUndeclaredInput       Name = "mrtr-undeclared-input"
	ListenNoAckCheck          Name = "listen-no-ack-check"
	ResultTypeUnknownAccepted Name = "result-type-unknown-accepted"
)

var clientModern = []Mutant{
	{NoEraFallback, "client", "falls back from its server/discover probe to initialize only on -32601; any other error or silence ends the connection (LC-46)"},
	{ModernNoMeta, "client", "sends its 2026-07-28 requests after server/discover without _meta (no protocolVersion, clientCapabilities or clientInfo) (JR-46)"},
	{ModernHeaderMismatch, "client", "sends Mcp-Name in upper case instead of mirroring params.name or params.uri exactly (HT-77, HT-83)"},
	{ModernParamHeaderRaw, "client", "sends an Mcp-Param-* value that is not plain header-safe ASCII as it is instead of in the =?base64?…?= form (HT-78)"},
	{InvalidHeaderToolKept, "client", "keeps, over HTTP, a tool whose x-mcp-header annotations are invalid instead of leaving it out (HT-80)"},
	{MRTRSameID, "client", "retries a request that got an InputRequiredResult with the same JSON-RPC id instead of a new one (MR-06)"},
	{MRTRStateAltered, "client", "retries with requestState missing its last character instead of echoing it exactly (MR-06)"},
	{MRTRStateReused, "client", "carries the last retry's inputResponses and requestState onto its next tools/call of any tool (MR-06)"},
	{MRTRUndeclaredInput, "client", "answers an input request for a capability or mode it did not declare (URL elicitation, sampling with tools, an unknown method) and retries, instead of failing the call (MR-04, EL-02)"},
	{ListenNoAckCheck, "client", "takes a subscriptions/listen stream as open without waiting for notifications/subscriptions/acknowledged or comparing what it honours with what was asked (SB-02, SB-04)"},
	{ResultTypeUnknownAccepted, "client", "takes a 2026-07-28 result whose resultType it does not know for a complete one instead of an invalid one (JR-16)"},
}

func init() { register(clientModern...) }
