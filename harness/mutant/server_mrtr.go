package mutant

// Mutants of the reference server's multi round-trip requests (2026-07-28,
// MR-01 … MR-08), in package mcpserver.
const (
	InputRequestsAsList        Name = "input-requests-as-list"
	InputRequiredOnList        Name = "input-required-on-list"
	InputRequestUndeclared     Name = "input-request-undeclared"
	RequestStateUnverified     Name = "request-state-unverified"
	RequestStateRejected       Name = "request-state-rejected"
	RequestStateUnbound        Name = "request-state-unbound"
	MissingInputError          Name = "missing-input-error"
	ExtraInputResponseRejected Name = "extra-input-response-rejected"
)

func init() {
	registerProtocol(
		Mutant{InputRequestsAsList, "server", "sends an InputRequiredResult's inputRequests as a list of {key, method, params} instead of an object keyed by name (MR-03)"},
		Mutant{InputRequiredOnList, "server", "answers a 2026-07-28 tools/list that declares roots with an InputRequiredResult asking for them (MR-02)"},
		Mutant{InputRequestUndeclared, "server", "asks for sampling, elicitation or roots in an InputRequiredResult whether or not the request declared the capability (MR-04)"},
		Mutant{RequestStateUnverified, "server", "takes a requestState that fails verification as if none came, starting the request over instead of rejecting it (MR-05)"},
		Mutant{RequestStateUnbound, "server", "accepts a requestState it issued for another request (another tool, other arguments) as if issued for this one (MR-05)"},
		Mutant{RequestStateRejected, "server", "rejects every requestState with -32602, its own unaltered ones too, so no request needing input completes (MR-07)"},
		Mutant{MissingInputError, "server", "answers a retry whose inputResponses lack an input it needs with -32602 instead of asking again (MR-07)"},
		Mutant{ExtraInputResponseRejected, "server", "answers a retry whose inputResponses hold a key it did not ask for with -32602 instead of ignoring it (MR-07)"},
	)
}
