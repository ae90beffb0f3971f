package mutant

// Mutants of how the reference client answers what a server asks of it:
// sampling, elicitation and roots, in either era, and ping and
// notifications in the legacy one (package mcpclient).
const (
	SamplingNoModel             Name = "sampling-no-model"
	ElicitationNoDefaults       Name = "elicitation-no-defaults"
	ElicitationDeclineIgnored   Name = "elicitation-decline-ignored"
	RootsNotFile                Name = "roots-not-file"
	RootsListChangedUndeclared  Name = "roots-list-changed-undeclared"
	PingRefused                 Name = "ping-refused"
	UnknownNotificationAnswered Name = "unknown-notification-answered"
)

var clientRequests = []Mutant{
	{SamplingNoModel, "client", "answers sampling/createMessage with a result that names no model (SM-02)"},
	{ElicitationNoDefaults, "client", "accepts a form-mode elicitation with empty content instead of the form with its schema's defaults filled in (EL-06)"},
	{ElicitationDeclineIgnored, "client", "answers an elicitation the user declined or cancelled with accept and the form's content (EL-17)"},
	{RootsNotFile, "client", "shares its roots as https:// URIs instead of the file:// URIs it was given (RT-03)"},
	{RootsListChangedUndeclared, "client", "sends notifications/roots/list_changed after the handshake though it declared roots without listChanged (LC-11)"},
	{PingRefused, "client", "answers a ping from the server with -32601 (method not found) instead of the empty result (PG-02)"},
	{UnknownNotificationAnswered, "client", "answers every notification from the server, one of a method MCP does not define included, with error -32601 as if it were a request (JR-14)"},
}

func init() { register(clientRequests...) }
