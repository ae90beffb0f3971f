package mutant

// Mutants of the reference server for the coverage of issue 20: the rules of
// the streamable HTTP transport and of the server's features that waited for
// a check.
const (
	UnknownMethodStatus200     Name = "unknown-method-200"
	MissingVersionHeaderServed Name = "missing-version-header-served"
	MirrorValueCaseFolded      Name = "mirror-value-case-folded"
	NoAccelBuffering           Name = "no-accel-buffering"
	ModernMintsSession         Name = "modern-mints-session"
	SequentialSessionIDs       Name = "sequential-session-ids"
	MissingVersionRefused      Name = "missing-version-refused"
)

// coverageTransport mutate the streamable HTTP server transport.
var coverageTransport = []Mutant{
	{UnknownMethodStatus200, "server", "answers a 2026-07-28 request of an unknown method with HTTP 200 instead of 404 (HT-75)"},
	{MissingVersionHeaderServed, "server", "serves a 2026-07-28 POST without MCP-Protocol-Version as 2026-07-28 instead of 400 with -32020 (HT-76)"},
	{MirrorValueCaseFolded, "server", "compares the Mcp-Method header with the body's method case-insensitively (HT-83)"},
	{NoAccelBuffering, "server", "leaves X-Accel-Buffering: no out of its 2026-07-28 SSE responses (HT-29c)"},
	{ModernMintsSession, "server", "serves 2026-07-28 only, as serve --era modern, and names a session in Mcp-Session-Id on its answers (HT-60)"},
	{SequentialSessionIDs, "server", "issues session ids from a counter: mcpconform-session-1, -2, … (HT-51)"},
	{MissingVersionRefused, "server", "refuses a legacy request without MCP-Protocol-Version with 400 instead of assuming 2025-03-26 (HT-71)"},
}

func init() {
	register(coverageTransport...)
}
