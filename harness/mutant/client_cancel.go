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
