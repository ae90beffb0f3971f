package httpfake

import "net/http"

// The header cases script RM-10 … RM-12 and HT-54: what a client sends on
// POST, GET and DELETE, after a redirect to another origin, and to a server
// without sessions.

// holdGetStream is headers' GET: an SSE stream with one keep-alive comment,
//
//	: keep-alive
//
// held open until the client closes it or the fake closes.
func holdGetStream(x *exchange) {
	if x.sse("\n", false).comment(" keep-alive") {
		x.hold()
	}
}

// redirectPOST answers every POST that reaches the first listener with 307 to
// the same path on the second; everything else, and everything on the second
// listener, gets the base behaviour.
func redirectPOST(x *exchange) bool {
	if x.listener != 0 || x.r.Method != http.MethodPost {
		return false
	}
	x.w.Header().Set("Location", x.f.urls[1])
	x.plain(http.StatusTemporaryRedirect, "moved to "+x.f.urls[1])
	return true
}
