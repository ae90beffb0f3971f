package http

import (
	"encoding/json"
	"fmt"
	nethttp "net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// What the checks of the server as a protected resource share: the
// challenge of its 401, its Protected Resource Metadata, and requests
// made with a token.

// authFrame is what a check of a protected server starts from: the server
// answered a request without a token 401 (protectedServer).
type authFrame struct {
	p         *probe
	challenge run.Challenge
	header    string // the WWW-Authenticate values, joined
}

// protectedServer POSTs initialize without a token. A 401 makes the
// server a protected resource, whose checks go on; anything else ends the
// check N/A for an open server, or FAIL when the run was told the server
// is protected (--fixtures protected: true) (AU-02, AU-09).
func protectedServer(c *run.C) *authFrame {
	p := newProbeVia(c, nil) // no run token: the check sends the tokens it is about

	id := p.id()
	r := p.post(p.message(id, "initialize", initializeParams()), nil, id, 0)
	if r.Status != nethttp.StatusUnauthorized {
		if c.Protected() {
			c.Failf("a protected server answers a request without a token 401 Unauthorized", "%s", r.describe())
		}
		c.NotApplicable(fmt.Sprintf("the server answered initialize without a token with status %d, not 401: it is no protected resource "+
			"(if it should be, say protected: true in the --fixtures file)", r.Status))
	}
	values := r.Header.Values(mcp.HeaderWWWAuthenticate)
	return &authFrame{p: p, challenge: run.ParseBearerChallenge(values), header: strings.Join(values, ", ")}
}

// initializeParams are the params of the checks' initialize.
func initializeParams() map[string]any {
	return map[string]any{"protocolVersion": latestLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpconform-probe", "version": "1"}}
}

// metadataURLs are where the server's Protected Resource Metadata may be
// (run.MetadataURLs).
func (f *authFrame) metadataURLs() []string { return run.MetadataURLs(f.p.url, f.challenge) }

// metadata fetches the Protected Resource Metadata from the first place
// of metadataURLs that serves a JSON object; nil and what each place
// answered when none does.
func (f *authFrame) metadata() (*run.PRM, string, []string) {
	var tried []string
	for _, u := range f.metadataURLs() {
		doc, why := run.FetchMetadata(f.p.c.Ctx, f.p.client, u)
		if doc != nil {
			return doc, u, nil
		}
		tried = append(tried, u+": "+why)
	}
	return nil, "", tried
}

// scope is the scope a token for the checks asks for: the challenge's, or
// else every scope the metadata lists, or else none.
func (f *authFrame) scope() string {
	if s := f.challenge.Params["scope"]; s != "" {
		return s
	}
	if doc, _, _ := f.metadata(); doc != nil {
		return strings.Join(doc.ScopesSupported, " ")
	}
	return ""
}

// otherResource is the audience of a token for another server.
const otherResource = "https://other-resource.invalid/mcp"

// validToken gets a token for this server with the checks' scope and
// makes sure the server accepts it: a check that sees a bad token refused
// must know a good one is not.
func (f *authFrame) validToken() string {
	scope := f.scope()
	tok := f.p.c.Token(target.TokenRequest{Resource: f.p.url, Scope: scope}, "token for this server")
	r := f.initialize(headers{mcp.HeaderAuthorization: "Bearer " + tok}, "")
	if r.Status/100 != 2 {
		f.p.c.Unimplemented(fmt.Sprintf("the server refused the token the command gave for %s with scope %q (%s), "+
			"so a refusal of a bad token would show nothing; make the command print a token this server accepts", f.p.url, scope, r.describe()))
	}
	return tok
}

// initialize POSTs initialize with h (and query as the URL's query) and
// ends any session it opens (with both) when the check ends.
func (f *authFrame) initialize(h headers, query string) *reply {
	id := f.p.id()
	req := f.p.request(f.p.message(id, "initialize", initializeParams()), h)
	if query != "" {
		req.URL.RawQuery = query
	}
	r := f.p.do(req, id, 0)
	if sid := r.Header.Get(mcp.HeaderSessionID); sid != "" && r.Status/100 == 2 {
		f.p.c.Cleanup(func() { f.endSession(sid, h, query) })
	}
	return r
}

// endSession ends a session opened with a token (in h or query), with
// DELETE.
func (f *authFrame) endSession(sid string, h headers, query string) {
	req := f.p.request(nil, h)
	req.URL.RawQuery = query
	req.Method, req.Body, req.ContentLength = nethttp.MethodDelete, nethttp.NoBody, 0
	req.Header.Set(mcp.HeaderSessionID, sid)
	if resp, err := f.p.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// refused reports whether a reply refuses its request: a 4xx status and
// no JSON-RPC result.
func refused(r *reply) bool {
	if r.Status < 400 || r.Status >= 500 {
		return false
	}
	for _, m := range r.Messages {
		if m.Kind() == jsonrpc.KindResult {
			return false
		}
	}
	return true
}

// stepUp tries the step-up case of AU-07: with a token of only the scope
// the 401's challenge names, it opens a session and calls a tool the run
// may call (one without required arguments, not slow). It returns the
// reply to that tools/call when the server refused it with 401 or 403,
// and what was asked; nil when the challenge names no scope, no tool may
// be called, or the call went through.
func (f *authFrame) stepUp() (*reply, string) {
	c, p := f.p.c, f.p
	scope := f.challenge.Params["scope"]
	if scope == "" {
		return nil, ""
	}
	tok := c.Token(target.TokenRequest{Resource: p.url, Scope: scope}, "token with the scope of the challenge ("+scope+")")
	auth := headers{mcp.HeaderAuthorization: "Bearer " + tok}
	init := f.initialize(auth, "")
	if init.Status/100 != 2 {
		return nil, ""
	}
	h := headers{mcp.HeaderAuthorization: "Bearer " + tok, mcp.HeaderProtocolVersion: latestLegacy}
	if sid := init.Header.Get(mcp.HeaderSessionID); sid != "" {
		h[mcp.HeaderSessionID] = sid
	}
	p.post(p.message(jsonrpc.ID{}, "notifications/initialized", nil), h, jsonrpc.ID{}, 0)
	id := p.id()
	list := p.post(p.message(id, "tools/list", nil), h, id, 0).response(id)
	if list == nil || list.Error != nil {
		return nil, ""
	}
	var result struct {
		Tools []run.ListedTool `json:"tools"`
	}
	_ = json.Unmarshal(list.Result, &result)
	slow := run.SlowTools(c.Options().Fixtures)
	for _, t := range result.Tools {
		if len(t.InputSchema.Required) > 0 || slices.Contains(slow, t.Name) {
			continue
		}
		if ok, _ := c.MayCall(t.Tool); !ok {
			continue
		}
		c.Calls(t.Name)
		id := p.id()
		r := p.post(p.message(id, "tools/call", map[string]any{"name": t.Name, "arguments": map[string]any{}}), h, id, 0)
		if r.Status == nethttp.StatusUnauthorized || r.Status == nethttp.StatusForbidden {
			return r, fmt.Sprintf("tools/call of %s with a token of scope %q (the challenge's)", t.Name, scope)
		}
		return nil, ""
	}
	return nil, ""
}
