package mutant

// Mutants of how the reference client answers what a server asks of it:
// sampling, elicitation and roots, in either era (package mcpclient).
const (
	SamplingNoModel            Name = "sampling-no-model"
	ElicitationNoDefaults      Name = "elicitation-no-defaults"
	ElicitationDeclineIgnored  Name = "elicitation-decline-ignored"
	RootsNotFile               Name = "roots-not-file"
	RootsListChangedUndeclared Name = "roots-list-changed-undeclared"
)

var clientRequests = []Mutant{
	{SamplingNoModel, "client", "answers sampling/createMessage with a result that names no model (SM-02)"},
	{ElicitationNoDefaults, "client", "accepts a form-mode elicitation with empty content instead of the form with its schema's defaults filled in (EL-06)"},
	{ElicitationDeclineIgnored, "client", "answers an elicitation the user declined or cancelled with accept and the form's content (EL-17)"},
	{RootsNotFile, "client", "shares its roots as https:// URIs instead of the file:// URIs it was given (RT-03)"},
	{RootsListChangedUndeclared, "client", "sends notifications/roots/list_changed after the handshake though it declared roots without listChanged (LC-11)"},
}

func init() { register(clientRequests...) }
