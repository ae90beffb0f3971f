package mutant

// Mutants of the reference client that break a rule of how it pages
// through a list (client.pagination.follows-cursors kills each) or of how
// it meets a version it does not speak (client.lifecycle.version-unspoken)
// or proposes one, or asks for a log level RFC 5424 has not
// (client.wire.session),
// or that leaves out the clientInfo of its 2026-07-28 requests
// (client.modern.meta).
const (
	ModernNoClientInfo Name = "modern-no-client-info"
	ProposesUnspoken   Name = "proposes-unspoken"
	LogLevelInvalid    Name = "log-level-invalid"
	VersionUnchecked   Name = "version-unchecked"

	PagesIgnored    Name = "pages-ignored"
	PageSizeAssumed Name = "page-size-assumed"
	CursorAltered   Name = "cursor-altered"
	EmptyCursorEnds Name = "empty-cursor-ends"
)

var clientWireRules2 = []Mutant{
	{LogLevelInvalid, "client", "asks in the _meta of every request after the handshake for the log level \"verbose\", which is none of the eight (LG-02)"},
	{ProposesUnspoken, "client", "proposes in initialize a version it does not speak, and disconnects when the server accepts it (LC-08)"},
	{ModernNoClientInfo, "client", "leaves io.modelcontextprotocol/clientInfo out of the _meta of its 2026-07-28 requests (JR-48)"},
	{VersionUnchecked, "client", "goes on with whatever protocol version the server's initialize result names (LC-10)"},
	{PagesIgnored, "client", "lists only the first page of tools/list, whatever nextCursor says (PA-04)"},
	{PageSizeAssumed, "client", "takes a tools/list page shorter than the first for the last (PA-02)"},
	{CursorAltered, "client", "sends a nextCursor back URL-escaped rather than as it came (PA-05)"},
	{EmptyCursorEnds, "client", "takes an empty nextCursor of the 2026-07-28 era for the end of the list (PA-06)"},
}

func init() { register(clientWireRules2...) }
