package http

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Headers: RM-11, RM-12, HT-10, HT-11, HT-13, HT-54, HT-70.

const customHeader = "X-Mcpconform-Probe"

func token() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "mcpconform-token-" + hex.EncodeToString(b)
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.headers.bearer-and-custom-everywhere",
	Title:       "the bearer token and custom headers go on every POST, GET and DELETE",
	Requirement: "The bearer token is sent as Authorization: Bearer <token> on every HTTP request (AU-08): POST, GET and DELETE; the seed's custom headers go on every request too (RM-12).",
	Rules:       []string{"AU-08", "RM-11", "RM-12"},
	KilledBy:    []mutant.Name{mutant.NoAuthOnGetDelete},
}, func(c *run.C) {
	tok, val := token(), "probe-value"
	r := c.RunHTTPClient(httpfake.Options{Case: "headers"}, target.Invocation{AuthToken: tok, Headers: map[string]string{customHeader: val}})
	wantAllCallsOK(c, r, 1)
	wantReached(c, r)
	sawAuth, sawCustom := false, false
	for _, q := range r.Requests {
		sawAuth = sawAuth || q.Header.Get("Authorization") == "Bearer "+tok
		sawCustom = sawCustom || q.Header.Get(customHeader) == val
	}
	if !sawAuth && !sawCustom {
		c.Unimplemented(fmt.Sprintf("no request carried the token or %s: the adapter must send %s and %s on every request", customHeader, target.EnvHeaders, target.EnvAuthToken))
	}
	for _, q := range r.Requests {
		if sawAuth {
			c.Require(q.Header.Get("Authorization") == "Bearer "+tok, "Authorization: Bearer <token> on every request",
				"a %s carried Authorization %q", q.Method, redactedAuth(q.Header.Get("Authorization"), tok))
		}
		if sawCustom {
			c.RequireHardened(q.Header.Get(customHeader) == val, customHeader+" on every request (RM-12)", "a %s carried %q", q.Method, q.Header.Get(customHeader))
		}
	}
	if !sawAuth || !sawCustom {
		missing := target.EnvAuthToken
		if !sawCustom {
			missing = target.EnvHeaders
		}
		c.Unimplemented(fmt.Sprintf("what the adapter sent went on every request, but it never sent %s: the adapter must send %s and %s on every request", missing, target.EnvHeaders, target.EnvAuthToken))
	}
})

func redactedAuth(v, tok string) string {
	if v == "" {
		return ""
	}
	return strings.ReplaceAll(v, tok, "<token>")
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.headers.reserved-untouched",
	Title:       "custom headers cannot override Accept or Mcp-Session-Id",
	Requirement: "Headers the transport owns (Accept, Mcp-Session-Id, Last-Event-ID) cannot be overridden by custom headers: the client refuses them or keeps its own.",
	// The headers are the application's own (the harness's
	// MCPCONFORM_HEADERS): HT-11 and HT-54 bind what the transport sends
	// of itself (http.client.post.accept-both, session.id-on-every-request);
	// that the application cannot override them is the seed's RM-12.
	Rules:    []string{"RM-12"},
	KilledBy: []mutant.Name{mutant.CustomOverridesReserved},
}, func(c *run.C) {
	// A harmless custom header beside the forged ones shows whether the
	// adapter passes MCPCONFORM_HEADERS to its client at all.
	r := c.RunHTTPClient(httpfake.Options{Case: "headers"},
		target.Invocation{Headers: map[string]string{"Accept": "text/plain", mcp.HeaderSessionID: "mcpconform-forged", customHeader: "probe"}})
	if _, refused := r.Failed(); refused != nil && len(r.Requests) == 0 {
		// Refusing the forged headers keeps them untouched too, if the
		// refusal is theirs: the same client with the harmless header only
		// must connect and send it.
		ok := c.RunHTTPClient(httpfake.Options{Case: "headers"}, target.Invocation{Headers: map[string]string{customHeader: "probe"}})
		if !slices.ContainsFunc(ok.Requests, func(q httpfake.Request) bool { return q.Header.Get(customHeader) == "probe" }) {
			c.Unimplemented(fmt.Sprintf("the client sent nothing with the forged headers and does not send %s alone either: the adapter must send %s on every request", customHeader, target.EnvHeaders))
		}
		return
	}
	wantReached(c, r)
	custom := false
	for _, q := range r.Requests {
		custom = custom || q.Header.Get(customHeader) == "probe"
		a := q.Header.Get("Accept")
		if q.Method == "POST" {
			c.Require(strings.Contains(a, mcp.ContentTypeJSON) && strings.Contains(a, mcp.ContentTypeSSE),
				"the transport's own Accept, listing application/json and text/event-stream", "a POST carried Accept: %q", a)
		}
		c.Require(q.SessionID != "mcpconform-forged", "the forged session id is never sent", "a %s carried it", q.Method)
		c.Require(a != "text/plain", "the transport's own Accept", "a %s carried Accept: text/plain", q.Method)
	}
	if !custom {
		c.Unimplemented(fmt.Sprintf("no request carried %s, so the forged headers were never offered to the client: the adapter must send %s on every request", customHeader, target.EnvHeaders))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.headers.no-cross-origin",
	Title:       "after a redirect to another origin, neither custom headers nor Authorization follow",
	Requirement: "Custom headers (and credentials) are not sent to another origin after a redirect.",
	Rules:       []string{"RM-12", "RM-11"},
	KilledBy:    []mutant.Name{mutant.HeadersCrossOrigin},
}, func(c *run.C) {
	tok := token()
	r := c.RunHTTPClient(httpfake.Options{Case: "redirect"}, target.Invocation{AuthToken: tok, Headers: map[string]string{customHeader: "probe"}})
	wantReached(c, r)
	first, sent, followed := r.Requests[0].Host, false, false
	for _, q := range r.Requests {
		if q.Host == first {
			sent = sent || q.Header.Get(customHeader) != "" || q.Header.Get("Authorization") != ""
			continue
		}
		followed = true
		c.Require(q.Header.Get(customHeader) == "" && q.Header.Get("Authorization") == "",
			"no custom header and no Authorization at the other origin", "a %s to %s carried them", q.Method, q.Host)
	}
	if !sent {
		c.Unimplemented(fmt.Sprintf("no request carried the token or %s, so nothing could follow the redirect: the adapter must send %s and %s on every request", customHeader, target.EnvHeaders, target.EnvAuthToken))
	}
	if !followed {
		c.Info(fmt.Sprintf("the client did not follow the redirect to the other origin (calls: %s), so its headers could not follow either", describeCalls(r.Calls)))
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.post.one-message",
	Title:       "each message is its own POST with a single JSON-RPC message",
	Requirement: "Every client message is its own POST whose body is exactly one request, notification or response.",
	Rules:       []string{"HT-10", "HT-13", "JR-37", "HT-14"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.BatchPOSTs},
}, func(c *run.C) {
	c.Unordered()
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved", Tools: 4}, target.Invocation{Parallel: true})
	wantReached(c, r)
	// 2025-03-26 allowed a batch array in a body (HT-12), which the fake
	// accepts when the client proposes that version: there a batch is no
	// breach of these rules, which bind the later versions.
	batchesAllowed := proposedVersion(r) == "2025-03-26"
	for _, q := range r.ByMethod("POST") {
		body := strings.TrimSpace(q.Body)
		if batchesAllowed && strings.HasPrefix(body, "[") {
			continue
		}
		c.Require(strings.HasPrefix(body, "{") && len(q.Messages) == 1, "one JSON object per POST body",
			"a POST body of %d bytes held %d message(s)", len(body), len(q.Messages))
	}
})

// proposedVersion is the protocolVersion of the client's first initialize,
// "" without one. The fakes echo a version they know, so it is also the
// version negotiated.
func proposedVersion(r *run.HTTPClientRun) string {
	for _, q := range initializeRequests(r) {
		for _, m := range q.Messages {
			if m.Method == "initialize" {
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(m.Params, &p)
				return p.ProtocolVersion
			}
		}
	}
	return ""
}

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.post.accept-both",
	Title:       "every POST accepts both application/json and text/event-stream, every GET text/event-stream",
	Requirement: "The POST Accept header lists both application/json and text/event-stream; the Accept of a GET that opens the SSE stream lists text/event-stream.",
	Rules:       []string{"HT-11", "HT-30g"},
	Eras:        check.BothEras,
	KilledBy:    []mutant.Name{mutant.AcceptJSONOnly, mutant.GETAcceptJSON},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantReached(c, r)
	for _, q := range r.ByMethod("POST") {
		a := q.Header.Get("Accept")
		c.Require(strings.Contains(a, mcp.ContentTypeJSON) && strings.Contains(a, mcp.ContentTypeSSE),
			"Accept lists application/json and text/event-stream", "Accept: %q", a)
	}
	for _, q := range r.ByMethod("GET") {
		a := q.Header.Get("Accept")
		c.RequireRuleAt("HT-30g", check.MUST, strings.Contains(a, mcp.ContentTypeSSE), "the Accept of every GET lists text/event-stream", "a GET carried Accept: %q", a)
	}
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.protocol-version-header",
	Title:       "every request after initialize carries MCP-Protocol-Version with the negotiated version",
	Requirement: "From 2025-06-18, every request after initialization carries MCP-Protocol-Version: <negotiated version>.",
	Rules:       []string{"HT-70", "LC-14"},
	KilledBy:    []mutant.Name{mutant.NoProtocolVersionHeader},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	negotiated := proposedVersion(r)
	if negotiated == "2025-03-26" {
		c.Unimplemented("the client negotiated 2025-03-26, which has no MCP-Protocol-Version header")
	}
	afterInit, judged := false, 0
	for _, q := range r.Requests {
		isInit := len(q.Messages) == 1 && q.Messages[0].Method == "initialize"
		if isInit {
			afterInit = true
			continue
		}
		if !afterInit {
			continue
		}
		judged++
		got := q.Header.Get(mcp.HeaderProtocolVersion)
		c.Require(got == negotiated, fmt.Sprintf("MCP-Protocol-Version: %s", negotiated), "a %s carried %q", q.Method, got)
	}
	if judged == 0 {
		c.Errorf("the server saw no request after initialize, though the adapter reported a call: the adapter must run its client against %s", target.EnvServerURL)
	}
})

var _ = eraChoiceCheck(check.Descriptor{
	ID:          "http.client.era.legacy-fallback",
	Title:       "a client that probes with server/discover falls back to initialize on a legacy server",
	Requirement: "A dual-era client reads an error to its server/discover probe as a legacy server and falls back to initialize.",
	Rules:       []string{"HT-92", "LC-45", "LC-46"},
	Eras:        []check.Era{check.Legacy, check.Modern},
	KilledBy:    []mutant.Name{mutant.DiscoverNoFallback},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "well-behaved"}, target.Invocation{})
	wantReached(c, r)
	if r.Count("server/discover") == 0 {
		c.NotApplicable(run.NoDiscoverProbe)
	}
	c.Require(r.Count("initialize") > 0, "initialize after the refused probe", "probes: %d; initialize never sent", r.Count("server/discover"))
	wantAllCallsOK(c, r, 1)
})

var _ = clientCheck(check.Descriptor{
	ID:          "http.client.session.id-on-every-request",
	Title:       "once issued, the session id goes on every POST, GET and DELETE",
	Requirement: "Once the server issued a session id, the client sends it on every later HTTP request: POST, GET and DELETE.",
	Rules:       []string{"HT-54"},
	KilledBy:    []mutant.Name{mutant.SessionIDOnlyOnPOST},
}, func(c *run.C) {
	r := c.RunHTTPClient(httpfake.Options{Case: "headers"}, target.Invocation{})
	wantAllCallsOK(c, r, 1)
	issued := ""
	for _, q := range r.Requests {
		if len(q.Messages) == 1 && (q.Messages[0].Method == "initialize" || q.Messages[0].Method == "server/discover") {
			continue
		}
		if issued == "" {
			issued = q.SessionID
		}
		c.Require(q.SessionID != "" && q.SessionID == issued, "the issued session id on every request", "a %s carried %q", q.Method, q.SessionID)
	}
})
