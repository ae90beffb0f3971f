package mutant

// Mutants of how the reference client reads a 2026-07-28 HTTP answer, meets
// a -32020 caused by its Mcp-Param-* headers and routes subscription
// notifications (http.client.modern.odd-answers,
// http.client.modern.param-headers-relisted and
// stdio.client.subscriptions.demultiplexed kill them).
const (
	ModernStreamResumed      Name = "modern-stream-resumed"
	HeaderNameCaseSensitive  Name = "header-name-case-sensitive"
	ParamMismatchNotRelisted Name = "param-mismatch-not-relisted"
	ListenNotDemultiplexed   Name = "listen-not-demultiplexed"
)

var clientHTTPModern = []Mutant{
	{ModernStreamResumed, "client", "resumes a 2026-07-28 response stream that broke before its response with GET and Last-Event-ID, as the legacy era does, instead of taking the request for lost (HT-47)"},
	{HeaderNameCaseSensitive, "client", "reads response header names case-sensitively: a Content-Type spelled in another case (CONTENT-TYPE) goes unseen (HT-83)"},
	{ListenNotDemultiplexed, "client", "hands a subscription notification whose subscriptionId names none of its subscriptions to one it has open instead of ignoring it (ST-15)"},
	{ParamMismatchNotRelisted, "client", "fails a 2026-07-28 tools/call answered -32020 for its Mcp-Param-* headers instead of fetching tools/list again and retrying with the headers it then gives (HT-82)"},
}

func init() { register(clientHTTPModern...) }
