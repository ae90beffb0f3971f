package httpfake

import (
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Answers of the 2026-07-28 era a client must still read: header names in
// a case no client expects (HT-83) and a response stream that breaks
// before its result, which has no resumption (HT-47).

// The tools of odd-answers besides echo, which is answered with JSON.
const (
	// ToolStreamed is answered in full on an SSE stream.
	ToolStreamed = "streamed"
	// ToolBroken's first call is answered on an SSE stream that breaks
	// (the connection closed) after a priming event with an id and a
	// retry field, before its result; later calls are answered in full.
	ToolBroken = "broken"
)

func init() {
	cases["odd-answers"] = fakeCase{
		desc: "every answer's header names in upper case (CONTENT-TYPE), an SSE stream's in lower case (content-type); offers echo (JSON), streamed (SSE, in full) and broken, " +
			"whose first call's SSE stream breaks, the connection closed, after a priming event with an id and the retry field RetryMS, before its result; later calls of broken are answered in full",
		build: oddAnswers,
	}
}

// oddAnswers builds odd-answers.
func oddAnswers(o Options) (*behaviour, error) {
	var brokenCalls atomic.Int32
	return &behaviour{
		tools:  []string{fakeservers.ToolEcho, ToolStreamed, ToolBroken},
		recase: oddCase,
		call: func(x *exchange, c fakeservers.ToolCall) {
			switch {
			case c.Name == ToolStreamed:
				if x.sse("\n", false).message(x.f.eventID(), c.OK()) {
					x.answered = true
				}
			case c.Name == ToolBroken && brokenCalls.Add(1) == 1:
				if x.sse("\n", false).priming(x.f.eventID(), o.RetryMS) {
					panic(http.ErrAbortHandler) // net/http closes the connection mid-stream
				}
			default:
				x.reply(c.OK())
			}
		},
	}, nil
}

// oddCase writes every header name of an answer in upper case, or in lower
// case for an SSE stream, and keeps the canonical Content-Type key present
// but empty, so that net/http neither sniffs a type nor writes one of its
// own.
func oddCase(h http.Header) {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	recase := strings.ToUpper
	if mt == mcp.ContentTypeSSE {
		recase = strings.ToLower
	}
	for _, k := range slices.Collect(maps.Keys(h)) {
		v := h[k]
		delete(h, k)
		h[recase(k)] = v
	}
	h["Content-Type"] = nil
}
