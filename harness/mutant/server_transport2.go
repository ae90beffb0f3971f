package mutant

// Mutants of the reference server about its transports and cancellation:
// what it writes to stdout, the requests it cancels, the replies it gets
// after it gave up waiting, the requests it was told to cancel in
// 2026-07-28, batches, a modern-only server's initialize error, and the
// stream its progress and notifications travel.
const (
	CancelsClientRequest   Name = "cancels-client-request"
	CancelWithoutRequestID Name = "cancel-without-request-id"
	ModernStdioRequest     Name = "modern-stdio-request"
	LateReplyAnswered      Name = "late-reply-answered"
	StdoutBatchLine        Name = "stdout-batch-line"
	BatchRefused           Name = "batch-refused"
	ModernAnswersCancelled Name = "modern-answers-cancelled"
	// InitializeNamesNoVersions serves 2026-07-28 only, as variant
	// ModernOnly does.
	InitializeNamesNoVersions Name = "initialize-names-no-versions"
	ProgressTokenForeign      Name = "progress-token-foreign"
	NotificationsOnGetStream  Name = "notifications-on-get-stream"
	StreamClosedEarly         Name = "stream-closed-early"
	CursorBoundToConnection   Name = "cursor-bound-to-connection"
)

func init() {
	registerProtocol(
		Mutant{CancelsClientRequest, "server", "sends notifications/cancelled naming the client's own tools/call before it answers it (CN-01)"},
		Mutant{CancelWithoutRequestID, "server", "sends notifications/cancelled without a requestId while it serves a tools/call (CN-03)"},
		Mutant{ModernStdioRequest, "server", "writes a ping request to stdout while it serves a 2026-07-28 tool call over stdio (ST-12)"},
		Mutant{LateReplyAnswered, "server", "answers a reply to a request it gave up waiting for with a -32600 error instead of ignoring it (CN-06)"},
		Mutant{ModernAnswersCancelled, "server", "still answers a 2026-07-28 request the client cancelled with notifications/cancelled (ST-14)"},
		Mutant{InitializeNamesNoVersions, "server", "serves 2026-07-28 only and refuses initialize with an error that names no version it supports (LC-48)"},
		Mutant{StdoutBatchLine, "server", "writes each stdio message as a JSON-RPC batch array of one, in every version (ST-10); no effect over HTTP"},
		Mutant{BatchRefused, "server", "answers a JSON-RPC batch in a 2025-03-26 stdio session with -32600, as in the versions without batches (JR-35); no effect over HTTP"},
		Mutant{CursorBoundToConnection, "server", "issues 2026-07-28 list cursors that only the server instance (over stdio: the process) that issued them serves (LC-51)"},
		Mutant{ProgressTokenForeign, "server", "reports a request's progress under a token of no request of the client's (HT-21)"},
	)
	register(
		Mutant{NotificationsOnGetStream, "server", "sends the notifications about a POSTed request on the GET stream, when one is read, instead of the request's own stream (HT-32g)"},
		Mutant{StreamClosedEarly, "server", "closes a POST's SSE stream in a session before 2025-11-25 after each message it sends before the response (HT-23)"},
	)
}
