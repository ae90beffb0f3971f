package mutant

// Mutants of the reference client that break a rule of the messages it
// sends in a session: their encoding, ids and _meta keys, the order of the
// initialize handshake, and the capabilities it uses. The check
// client.wire.session kills each.
const (
	NotUTF8            Name = "not-utf8"
	IDsRestart         Name = "ids-restart"
	MetaKeyMalformed   Name = "meta-key-malformed"
	MetaKeyReserved    Name = "meta-key-reserved"
	PingBeforeInit     Name = "ping-before-initialize"
	InitializedEarly   Name = "initialized-early"
	RequestBeforeInit  Name = "request-before-initialize-result"
	BrowseUndeclared   Name = "browse-undeclared"
	TraceparentInvalid Name = "traceparent-invalid"
)

var clientWireRules = []Mutant{
	{NotUTF8, "client", "sends its clientInfo name with a byte that is not UTF-8 (JR-02)"},
	{IDsRestart, "client", "numbers its requests from 1 again after the handshake, reusing initialize's id (JR-05)"},
	{MetaKeyMalformed, "client", "puts a _meta key whose prefix label starts with a hyphen on every request after the handshake (JR-42)"},
	{MetaKeyReserved, "client", "puts a _meta key of its own under the reserved prefix io.modelcontextprotocol/ on every request after the handshake (JR-45)"},
	{PingBeforeInit, "client", "sends ping before initialize, so initialize is not the first interaction (LC-02)"},
	{InitializedEarly, "client", "sends notifications/initialized right after initialize, before its response (LC-05)"},
	{RequestBeforeInit, "client", "sends tools/list right after initialize, before its response (LC-06)"},
	{BrowseUndeclared, "client", "lists resources and prompts whatever the server declared (LC-11)"},
	{TraceparentInvalid, "client", "puts a traceparent in the _meta of every request after the handshake that is not in the W3C Trace Context format (JR-50)"},
}

func init() { register(clientWireRules...) }
