package mutant

// Mutants of how the reference client meets the base protocol: a JSON
// object the server sends that is no valid request (JR-21, its stdio and
// HTTP transports), and the results of a 2026-07-28 conversation (LC-40).
const (
	InvalidRequestUnanswered Name = "invalid-request-unanswered"
	InvalidRequestFatal      Name = "invalid-request-fatal"
	ModernCompleteRefused    Name = "modern-complete-refused"
)

var clientProtocol = []Mutant{
	{InvalidRequestUnanswered, "client", "ignores a JSON object the server sends that is no valid request (jsonrpc \"1.0\", no method, an id that is an object) instead of answering it with -32600 (JR-21)"},
	{InvalidRequestFatal, "client", "ends the session (stdio) or fails the exchange (HTTP) on a JSON object the server sends that is no valid request, instead of answering it with -32600 and going on (JR-21)"},
	{ModernCompleteRefused, "client", "takes a 2026-07-28 result whose resultType is \"complete\" for one of a type it does not know, so that no request after server/discover succeeds (LC-40)"},
}

func init() { register(clientProtocol...) }
