package httpfake

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// CaseInfo describes one HTTP fake case for listings.
type CaseInfo struct {
	ID          string
	Description string
}

// fakeCase is one catalogue entry: what the case does, and how to build its
// behaviour from the options (defaults filled in), validating them.
type fakeCase struct {
	desc     string
	sessions bool // the case expires sessions, so it cannot be stateless or modern
	// legacyOnly, when set, says what of the legacy era the case scripts
	// (a GET stream, resumption, requests to the client), so it cannot
	// serve the modern era.
	legacyOnly string
	build      func(o Options) (*behaviour, error)
}

// behaviour is what a case changes in the base HTTP server. The zero
// value is the well-behaved server; each nil hook keeps the base behaviour.
// Hooks run on the request's own goroutine and answer it through x; the
// tools/call, initialize and cancelled hooks see single-message POSTs only
// (a batch is answered by the base handlers).
type behaviour struct {
	tools            []string // offered tool names; empty: one tool, "echo"
	paged            bool     // tools/list serves fakeservers.PagedTools in pages
	initVersion      string   // the protocolVersion initialize answers with; empty: the proposed one
	stateless        bool     // hand out no session id; ignore the header
	listeners        int      // listeners to open; 0 means 1
	expireFirstAfter int      // the first session expires after this many requests carrying it

	// route sees every request to mcp.EndpointPath first; true when it answered.
	route func(x *exchange) bool
	// initialize runs before the base initialize; false when it answered
	// (or gave up) itself.
	initialize func(x *exchange, m *jsonrpc.Message) bool
	// call answers a tools/call.
	call func(x *exchange, c fakeservers.ToolCall)
	// get answers a GET carrying a live session (any GET when stateless).
	get func(x *exchange)
	// cancelled answers a notifications/cancelled.
	cancelled func(x *exchange, m *jsonrpc.Message)
	// reply sees each client response (a reply to a server request) before
	// the base answers its POST with 202.
	reply func(m *jsonrpc.Message)

	// schemas are the input schemas of the tools that have their own;
	// schemasNow, when set, gives them at each tools/list instead.
	schemas    map[string]map[string]any
	schemasNow func() map[string]map[string]any
	// outputSchemas are the output schemas of the tools that declare one.
	outputSchemas map[string]map[string]any
	// capabilities are the server's, in server/discover; nil: tools.
	capabilities map[string]any
	// listen answers a subscriptions/listen of the modern era; nil: -32601.
	listen func(x *exchange, m *jsonrpc.Message)
	// recase rewrites the header names of every answer as it is written.
	recase func(h http.Header)
}

// cases is the catalogue of HTTP fake servers, by case ID.
var cases = map[string]fakeCase{
	"well-behaved": {
		desc:  "a correct streamable HTTP server of its Era: one tool, echo; JSON answers; legacy: sessions, GET 405, DELETE ends the session; modern: no sessions, GET and DELETE 405",
		build: fixed(behaviour{}),
	},
	"expire-after": {
		desc:     "the first session expires (404) after ExpireAfter POSTs carrying it (GET and DELETE do not count); sessions from later initializes never expire",
		sessions: true,
		build:    expireAfter,
	},
	"expire-inflight": {
		desc:     "offers slow-1…slow-N (Tools); in the first session each tools/call waits until N calls are in progress or Delay passes, then the session expires and all of them get 404 at once; later sessions answer at once",
		sessions: true,
		build:    expireInflight,
	},
	"expire-old-pending": {
		desc:     `offers "old" and "new"; in the first session "old" blocks Delay, then gets 404; "new" waits until "old" is in progress (at most Delay), then expires the session and gets 404; later sessions answer at once`,
		sessions: true,
		build:    expireOldPending,
	},
	"recovery-hangs": {
		desc:     "tools/call expires the session (404); every initialize after that blocks until the client leaves or the fake closes, or with Delay answers after Delay, and calls then succeed after Delay/5",
		sessions: true,
		build:    recoveryHangs,
	},
	"expire-again": {
		desc:     "every tools/call expires its session and gets 404, in every session",
		sessions: true,
		build:    fixed(behaviour{call: func(x *exchange, _ fakeservers.ToolCall) { x.expire() }}),
	},
	"sse-event": {
		desc:  "tools/call answers SSE: a priming event, then the result as one event of exactly SSEEventSize raw bytes (id line + data line, each +1 for its LF; padding in result.padding); GET with Last-Event-ID gets 405 (and is recorded)",
		build: sseEvent,
	},
	"sse-huge": {
		desc:  "tools/call answers SSE: a priming event, a notifications/message event of exactly SSEEventSize raw bytes written in 32 KiB chunks (padding in params.data), then the result; stops when the client leaves",
		build: sseHuge,
	},
	"sse-crlf-split": {
		desc:  "tools/call answers SSE with CRLF line breaks, CR and LF each in its own flushed write, SplitBreakGap apart: a priming event, then the result event (of exactly SSEEventSize raw bytes when set, CRLF counted as 1)",
		build: sseCRLFSplit,
	},
	"sse-comments": {
		desc:  "tools/call answers SSE: " + strconv.Itoa(sseKeepAlives) + " keep-alive comment lines, a blank line (a comment-only event), then the result event with a comment line inside and its JSON split over three data lines",
		build: fixed(behaviour{call: sseComments}),
	},
	"slow-calls": {
		desc:  "offers t1…tN (Tools); each tools/call answers JSON after Delay; MaxConcurrent says how many were in progress at once",
		build: slowCalls,
	},
	"slow-start": {
		desc:  "well-behaved, but answers initialize only after Delay, serving whatever else arrives meanwhile",
		build: slowStart,
	},
	"sse-early": {
		desc:  "offers t1…tN (Tools); each tools/call sends SSE headers at once and the result after Delay; MaxSSEStreams counts the open streams",
		build: sseEarly,
	},
	"server-request": {
		legacyOnly: "sends requests to the client",
		desc:       `offers t1…tN (Tools); the first tools/call answers SSE with a roots/list request (id "srv-1"); later calls hold their answer (no headers) until that reply arrives, then do the same with srv-<n>; each result follows its reply as a POST (an error after Delay)`,
		build:      serverRequest,
	},
	"headers": {
		legacyOnly: "opens a GET stream",
		desc:       "well-behaved, and GET opens an SSE stream (one keep-alive comment) held until the client closes it",
		build:      fixed(behaviour{get: holdGetStream}),
	},
	"redirect": {
		desc:  "POSTs to URL get 307 to the same path on SecondURL (another port: another origin), which serves the base behaviour; both record",
		build: fixed(behaviour{listeners: 2, route: redirectPOST}),
	},
	"stateless": {
		desc:  "well-behaved but stateless: no Mcp-Session-Id ever; DELETE 405",
		build: fixed(behaviour{stateless: true}),
	},
	"get-405": {
		legacyOnly: "answers GET, which the modern era has not",
		desc:       "well-behaved; GET gets 405 Method Not Allowed",
		build:      fixed(behaviour{get: noGetStream}),
	},
	"resume": {
		legacyOnly: "resumes a stream with Last-Event-ID",
		desc:       "tools/call answers SSE with a priming event carrying retry: RetryMS, then ends the stream before the result; a GET with that Last-Event-ID gets the result on a new stream",
		build:      resume,
	},
	"fuzz": {
		desc:     "offers t1…tN, one per entry of the Fuzz plan: each tools/call expires the first session (404), or answers JSON, or SSE with a ping before the result and the result as one event of an exact raw size",
		sessions: true,
		build:    fuzz,
	},
	"client-requests": {
		desc:  fakeservers.ClientRequestsCase,
		build: clientRequests,
	},
	"input-required": {
		desc:  fakeservers.ModernCases["input-required"],
		build: fixed(behaviour{tools: []string{fakeservers.ToolAsk, fakeservers.ToolAskStateless, fakeservers.ToolEcho}, call: askInput(false)}),
	},
	"input-undeclared": {
		desc:  fakeservers.ModernCases["input-undeclared"],
		build: fixed(behaviour{tools: []string{fakeservers.ToolAsk, fakeservers.ToolEcho}, call: askInput(true)}),
	},
	"listen": {
		desc:  fakeservers.ModernCases["listen"],
		build: fixed(behaviour{capabilities: fakeservers.ListenCapabilities(), listen: acknowledge(false)}),
	},
	"listen-ack-short": {
		desc:  fakeservers.ModernCases["listen-ack-short"],
		build: fixed(behaviour{capabilities: fakeservers.ListenCapabilities(), listen: acknowledge(true)}),
	},
	"batch": {
		desc:       fakeservers.BatchCase,
		legacyOnly: "a batch of requests to the client on the call's SSE stream",
		build:      batch,
	},
	"invalid-request": {
		desc:       fakeservers.InvalidCase,
		legacyOnly: "JSON objects that are no valid request on the call's SSE stream",
		build:      invalidRequest,
	},
	"version-unspoken": {
		legacyOnly: "answers initialize with a version of its own",
		desc:       fakeservers.UnspokenCase,
		build:      fixed(behaviour{initVersion: fakeservers.VersionUnspoken}),
	},
	"paged": {
		desc:  fakeservers.PagedCase,
		build: fixed(behaviour{paged: true}),
	},
	"result-type-unknown": {
		desc:  fakeservers.ModernCases["result-type-unknown"],
		build: fixed(behaviour{tools: []string{fakeservers.ToolStrange, fakeservers.ToolEcho}, call: strangeResult}),
	},
	"output-schema": {
		desc: fakeservers.OutputSchemaCase,
		build: func(o Options) (*behaviour, error) {
			tools, schemas := fakeservers.OutputSchemaOffer(o.Era == fakeservers.Modern, o.RefURL)
			return &behaviour{tools: tools, outputSchemas: schemas, call: outputSchemaResult}, nil
		},
	},
	"param-headers": {
		desc: "2026-07-28: offers route, whose parameters of every kind are mirrored in Mcp-Param-* headers (fixed by const), bad-headers, whose annotations clash, and echo",
		build: func(Options) (*behaviour, error) {
			return &behaviour{tools: []string{ToolRoute, ToolBadHeaders, fakeservers.ToolEcho}, schemas: paramSchemas()}, nil
		},
	},
	"control-hang": {
		desc:  "offers t1…tN (Tools); tools/call and notifications/cancelled POSTs are never answered: held until the client leaves or the fake closes",
		build: controlHang,
	},
}

// CaseIDs lists the registered HTTP case IDs in order.
func CaseIDs() []string {
	return slices.Sorted(maps.Keys(cases))
}

// Cases lists the HTTP catalogue in ID order.
func Cases() []CaseInfo {
	infos := make([]CaseInfo, 0, len(cases))
	for _, id := range CaseIDs() {
		infos = append(infos, CaseInfo{ID: id, Description: cases[id].desc})
	}
	return infos
}

// fixed builds a case that takes no options.
func fixed(b behaviour) func(Options) (*behaviour, error) {
	return func(Options) (*behaviour, error) {
		copied := b
		return &copied, nil
	}
}

// numberedTools names n tools prefix1…prefixN.
func numberedTools(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = prefix + strconv.Itoa(i+1)
	}
	return names
}
