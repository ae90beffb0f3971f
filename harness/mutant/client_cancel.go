package mutant

// Mutants of the reference client that break a rule of how it cancels a
// request or meets a response to one it cancelled ({stdio,http}.client.cancel.notification
// kill them), or of the Accept of its GET stream (http.client.post.accept-both).
const (
	CancelUnissuedID    Name = "cancel-unissued-id"
	CancelNoRequestID   Name = "cancel-no-request-id"
	LateAnswerMisrouted Name = "late-answer-misrouted"
	GETAcceptJSON       Name = "get-accept-json"
)

var clientCancel = []Mutant{
	{CancelUnissuedID, "client", "names in notifications/cancelled a request id it has not issued (the timed-out one's plus 1000) (CN-01)"},
	{CancelNoRequestID, "client", "leaves requestId out of notifications/cancelled (CN-03)"},
	{LateAnswerMisrouted, "client", "gives a response that matches no pending call (one to a request it cancelled) to its oldest pending call (CN-06)"},
	{GETAcceptJSON, "client", "sends Accept: application/json on the GET that opens its SSE stream (HT-30g)"},
}

func init() { register(clientCancel...) }

// CapabilitiesDroppedOnRetry declares in the retry of a 2026-07-28 request
// (the one carrying inputResponses) none of the capabilities its answers
// declare (client.capabilities.declared kills it).
const CapabilitiesDroppedOnRetry Name = "capabilities-dropped-on-retry"

func init() {
	register(Mutant{CapabilitiesDroppedOnRetry, "client", "declares sampling, elicitation and roots in its 2026-07-28 requests but not in a retry carrying inputResponses (SM-01, EL-01, RT-01)"})
}

// RootsUndeclaredAnswered answers roots/list with an empty list though it
// declared no roots (http.client.roots.undeclared-method-not-found kills it).
const RootsUndeclaredAnswered Name = "roots-undeclared-answered"

func init() {
	register(Mutant{RootsUndeclaredAnswered, "client", "answers roots/list with an empty list of roots though it declared no roots, rather than -32601 (RT-05)"})
}
