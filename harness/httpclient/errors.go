package httpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Causes the client's failures wrap, for callers that branch with errors.Is
// beyond the failure kind.
var (
	// ErrSessionExpired: a request that carried a session id met 404 and was
	// not (or no longer) recovered (RM-04, RM-08). Kind failure.ErrConnection.
	ErrSessionExpired = errors.New("session expired")
	// ErrSessionRecoveryTimeout: a POST of the expired session was still
	// unfinished when the recovery wait ended; it is not retried, since the
	// server may have run it (RM-07). Kind failure.ErrTimeout.
	ErrSessionRecoveryTimeout = errors.New("session recovery timeout")
	// ErrRecoveryFailed: the new handshake after a session expired failed
	// (RM-08). Kind failure.ErrConnection.
	ErrRecoveryFailed = errors.New("session recovery failed")
	// ErrNoSessionID: the initialize reply carried no Mcp-Session-Id and
	// AllowStateless is off (RM-10). Kind failure.ErrProtocol.
	ErrNoSessionID = errors.New("no session id")
)

// maxErrorBody is how much of an error response's body is read; a JSON
// body is shown as JSON up to maxErrorShown bytes of it, a text body of up
// to maxErrorShown bytes is quoted in the failure, a longer one never.
const (
	maxErrorBody  = 4 << 10
	maxErrorShown = 256
)

// statusFailure describes an HTTP error response (ErrConnection) without
// reading more than maxErrorBody of its body: a JSON body as JSON (compact,
// clipped), short text quoted.
func statusFailure(op string, resp *http.Response) *failure.Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	detail := "HTTP " + resp.Status
	if shown, ok := jsonText(body); ok {
		return failure.New(failure.ErrConnection, op, detail+": "+transcript.Clip(shown, maxErrorShown))
	}
	switch {
	case len(body) > maxErrorShown:
		detail += fmt.Sprintf(" (a body of more than %d bytes, not shown)", maxErrorShown)
	case len(body) > 0 && utf8.Valid(body):
		detail += ": " + strconv.Quote(string(body))
	case len(body) > 0:
		detail += fmt.Sprintf(" (a body of %d bytes that is not text)", len(body))
	}
	return failure.New(failure.ErrConnection, op, detail)
}

// jsonText is body, when it is a whole JSON object or array, on one line.
func jsonText(body []byte) (string, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil || b.Len() == 0 || (b.Bytes()[0] != '{' && b.Bytes()[0] != '[') {
		return "", false
	}
	return b.String(), true
}

// causedBy returns a failure of kind with cause as its underlying error.
func causedBy(kind error, op, detail string, cause error) *failure.Error {
	return &failure.Error{Kind: kind, Op: op, Detail: detail, Err: cause}
}
