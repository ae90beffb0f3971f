package stdiofake

import (
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// CaseInfo describes one fake server case for listings.
type CaseInfo struct {
	ID          string
	Description string
	Internal    bool // started by another case, not by the harness
}

// fakeCase is one catalogue entry: what the case does, and how to build its
// behaviour from the options (validating them).
type fakeCase struct {
	desc     string
	internal bool
	build    func(o Options) (*behaviour, error)
}

// behaviour is what a case changes in the base server. The zero value is the
// well-behaved server; each nil hook keeps the base behaviour.
type behaviour struct {
	tools         []string      // offered tool names; empty: one tool, "echo"
	paged         bool          // tools/list serves fakeservers.PagedTools in pages
	initVersion   string        // the protocolVersion initialize answers with; empty: the proposed one
	ignoreEOF     bool          // keep running after stdin EOF
	ignoreSigterm bool          // keep running after SIGTERM (subprocess only)
	initDelay     time.Duration // delay of the handshake's reply: initialize, or server/discover in the modern era

	// start runs before stdin is read; it may end the fake (s.exitWith).
	start func(s *server)
	// call handles one tools/call, in its own goroutine; it may answer, not
	// answer, or end the fake (s.exitWith).
	call func(s *server, c fakeservers.ToolCall)
	// respond writes one response; every response goes through it.
	respond func(s *server, m *jsonrpc.Message)
	// received sees every message the client sent, as it is read.
	received func(s *server, m *jsonrpc.Message)

	// outputSchemas are the output schemas of the tools that declare one.
	outputSchemas map[string]map[string]any
	// descriptions and annotations are those of the tools that have their
	// own (fakeservers.Offer).
	descriptions map[string]string
	annotations  map[string]map[string]any
	// capabilities are the server's, in server/discover; nil: tools.
	capabilities map[string]any
	// listen answers a subscriptions/listen of the modern era; nil: -32601.
	listen func(s *server, m *jsonrpc.Message)
}

// cases is the catalogue of fake servers, by case ID.
var cases = map[string]fakeCase{
	"well-behaved": {
		desc:  "a correct server of its --era: one tool, echo",
		build: fixed(behaviour{}),
	},
	"banner-before-init": {
		desc:  "writes --lines text lines holding --marker to stdout before reading anything",
		build: bannerBeforeInit,
	},
	"banner-lines": {
		desc:  "on tools/call writes --lines text lines, then the result",
		build: bannerLines,
	},
	"banner-bytes": {
		desc:  "on tools/call writes text lines of exactly --bytes bytes (newlines included; lines of 100 bytes, at most --lines if set), then the result",
		build: bannerBytes,
	},
	"banner-between": {
		desc:  "offers --tools tools t1…tN; writes --lines text lines before and after every response",
		build: bannerBetween,
	},
	"damaged": {
		desc:  "on tools/call writes one damaged line of --shape and never answers that call",
		build: damaged,
	},
	"non-object": {
		desc:  "on tools/call writes the JSON value --shape (42, \"x\", null, true, []) and never answers that call",
		build: nonObject,
	},
	"stderr-flood": {
		desc:  "writes --bytes bytes of lines holding --marker to stderr, --when before reading stdin or during tools/call",
		build: stderrFlood,
	},
	"stderr-secret-exit": {
		desc:  "on tools/call writes stderr lines holding --marker, then exits with status 1 without answering",
		build: stderrSecretExit,
	},
	"never-answers": {
		desc:  "never answers tools/call; exits on stdin EOF",
		build: fixed(behaviour{call: leaveUnanswered}),
	},
	"never-answers-ignore-eof": {
		desc:  "never answers tools/call; ignores stdin EOF, exits on SIGTERM",
		build: fixed(behaviour{call: leaveUnanswered, ignoreEOF: true}),
	},
	"never-answers-stubborn": {
		desc:  "never answers tools/call; ignores stdin EOF and SIGTERM",
		build: fixed(behaviour{call: leaveUnanswered, ignoreEOF: true, ignoreSigterm: true}),
	},
	"cancel-then-echo": {
		desc:  "offers slow and echo; answers echo once a notifications/cancelled has arrived (first answering each slow call late, with an error), or --delay (default 2s) after echo's call (slow then stays unanswered)",
		build: cancelThenEcho,
	},
	"close-ignore-eof": {
		desc:  "well behaved, but ignores stdin EOF; exits on SIGTERM",
		build: fixed(behaviour{ignoreEOF: true}),
	},
	"close-stubborn": {
		desc:  "well behaved, but ignores stdin EOF and SIGTERM",
		build: fixed(behaviour{ignoreEOF: true, ignoreSigterm: true}),
	},
	"grandchild": {
		desc:  "starts a grandchild in its process group that ignores SIGTERM and writes --file after --delay",
		build: grandchild,
	},
	"grandchild-sleeper": {
		desc:     "the grandchild of grandchild: ignores SIGTERM, sleeps --delay, writes --file",
		internal: true,
		build:    grandchildSleeper,
	},
	"slow-start": {
		desc:  "delays its handshake reply (initialize, or server/discover in the modern era) by --delay, reading stdin meanwhile",
		build: slowStart,
	},
	"early-exit": {
		desc:  "on tools/call exits with status 3 without answering",
		build: fixed(behaviour{call: exitEarly}),
	},
	"id-swap": {
		desc:  "on tools/call first answers an error whose id has the other JSON type, then the real result",
		build: fixed(behaviour{call: swapIDs}),
	},
	"reverse-order": {
		desc:  "offers --tools tools ok-1, err-2, …; answers the calls out of arrival order, each answer's kind unlike the call that arrived at its place",
		build: reverseOrder,
	},
	"script": {
		desc:  "tools and per-call output (lines before, reply or not, lines after) from the JSON --file",
		build: script,
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
	"client-requests": {
		desc:  fakeservers.ClientRequestsCase,
		build: clientRequests,
	},
	"renamed-fixtures": {
		desc: "a server under test whose tools show progress (count-sheep, with a progressToken), logging (chatter), sampling (ask-model) and form elicitation " +
			"(ask-user, not read-only) under names no official fixture has, beside echo, wipe (destructive: never to be called by default) and doze (never answers)",
		build: renamedFixtures,
	},
	"paged": {
		desc:  fakeservers.PagedCase,
		build: fixed(behaviour{paged: true}),
	},
	"batch": {
		desc:  fakeservers.BatchCase,
		build: batch,
	},
	"invalid-request": {
		desc:  fakeservers.InvalidCase,
		build: invalidRequest,
	},
	"version-unspoken": {
		desc:  fakeservers.UnspokenCase,
		build: fixed(behaviour{initVersion: fakeservers.VersionUnspoken}),
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
}

// Cases lists the catalogue in ID order.
func Cases() []CaseInfo {
	infos := make([]CaseInfo, 0, len(cases))
	for _, id := range CaseIDs() {
		c := cases[id]
		infos = append(infos, CaseInfo{ID: id, Description: c.desc, Internal: c.internal})
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
