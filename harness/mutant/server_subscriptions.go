package mutant

// Mutants of the reference server's 2026-07-28 streams: subscriptions/listen,
// the notifications about a request, its cancellation, and the headers that
// mirror a tool's arguments.
const (
	ListenNoticeBeforeAck  Name = "listen-notice-before-ack"
	ListenUntagged         Name = "listen-untagged"
	ListenIgnoresFilter    Name = "listen-ignores-filter"
	ListenIgnoresCancel    Name = "listen-ignores-cancel"
	ProgressOnListenStream Name = "progress-on-listen-stream"
	CancelEchoed           Name = "cancel-echoed"
	ParamHeadersUnchecked  Name = "param-headers-unchecked"
)

func init() {
	registerProtocol(
		Mutant{ListenNoticeBeforeAck, "server", "sends a list-changed notification on a subscriptions/listen stream before its acknowledgement (SB-02)"},
		Mutant{ListenUntagged, "server", "leaves _meta subscriptionId out of the notifications that follow a listen stream's acknowledgement (SB-03)"},
		Mutant{ListenIgnoresFilter, "server", "sends every list change to every subscriptions/listen stream, whatever notifications it opted into (SB-01)"},
		Mutant{ListenIgnoresCancel, "server", "keeps a subscriptions/listen stream going after the client cancelled it with notifications/cancelled (CN-04)"},
		Mutant{ProgressOnListenStream, "server", "sends a tool call's progress on the open subscriptions/listen stream instead of the call's own response stream (PR-11, SB-06)"},
		Mutant{CancelEchoed, "server", "answers a client's notifications/cancelled for a 2026-07-28 request with a notifications/cancelled of its own for that request (CN-11)"},
		Mutant{ParamHeadersUnchecked, "server", "serves a 2026-07-28 tools/call whose Mcp-Param-* headers are missing, differ from the arguments they mirror or are not valid base64 instead of 400 with -32020 (HT-81)"},
	)
}
