package fakeservers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Era is the protocol era a fake serves. Whatever the era, a case scripts
// the same misbehaviour (banners, damaged lines, floods, slow or missing
// answers); the era decides the handshake and the shape of every answer.
type Era string

// Eras of the fakes.
const (
	// Legacy is the initialize handshake of 2025-03-26 … 2025-11-25:
	// server/discover, like any method the fake does not know, gets
	// -32601, as a legacy server answers it.
	Legacy Era = "legacy"
	// Modern is 2026-07-28 only: server/discover answers with the versions
	// served; every request carries _meta with the protocol version and
	// the client's capabilities or gets -32602 (JR-47); initialize is
	// refused with -32022 naming the versions served (LC-48); every result
	// carries resultType (JR-15). Over HTTP: no sessions, no GET stream,
	// and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must
	// mirror the body (400, -32020).
	Modern Era = "modern"
	// Dual serves both (LC-49): initialize opens the legacy era, and a
	// request naming its protocol version in _meta (server/discover
	// included) is served in the modern one.
	Dual Era = "dual"
)

// Eras lists the eras a fake serves, in the order of the --era flag's help.
func Eras() []Era { return []Era{Legacy, Modern, Dual} }

// ParseEra reads an era name; "" is Legacy.
func ParseEra(s string) (Era, error) {
	if s == "" {
		return Legacy, nil
	}
	if e := Era(s); slices.Contains(Eras(), e) {
		return e, nil
	}
	names := make([]string, len(Eras()))
	for i, e := range Eras() {
		names[i] = string(e)
	}
	return "", fmt.Errorf("era %q is not one the fakes serve; use %s", s, strings.Join(names, ", "))
}

// ServesModern reports whether a fake of era e serves 2026-07-28.
func (e Era) ServesModern() bool { return e == Modern || e == Dual }

// Admission is how a fake takes one request.
type Admission struct {
	// Modern: the request is served in (or, refused, was sent in) the
	// 2026-07-28 era: its answer carries resultType.
	Modern bool
	// Version is the protocol version the request's _meta names ("" when
	// it names none).
	Version string
	// Refusal, when set, is the error the request gets instead of being
	// served: -32602 for a missing or malformed _meta (JR-47), -32022 for a
	// version not served, or for initialize at a modern-only fake (LC-42,
	// LC-48).
	Refusal *jsonrpc.Error
}

// Admit says how a fake of era e takes request m. A legacy fake serves
// everything in the legacy era (server/discover then gets -32601 from the
// base handlers, as it did before the modern era existed).
func (e Era) Admit(m *jsonrpc.Message) Admission {
	if !e.ServesModern() {
		return Admission{}
	}
	meta, modern := mcp.ModernRequest(m)
	switch {
	case !modern && e == Dual:
		return Admission{}
	case !modern && m.Method == MethodInitialize:
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = mcp.DecodeParams(m.Params, &p) // a malformed proposal is named as empty
		return Admission{Refusal: mcp.UnsupportedVersion(p.ProtocolVersion, mcp.ModernProtocolVersions)}
	}
	a := Admission{Modern: modern, Version: meta.Version}
	switch {
	case meta.Problem() != nil:
		a.Refusal = meta.Problem()
	case !slices.Contains(mcp.ModernProtocolVersions, meta.Version):
		a.Refusal = mcp.UnsupportedVersion(meta.Version, mcp.ModernProtocolVersions)
	}
	return a
}

// Methods the fakes treat specially.
const (
	MethodInitialize = "initialize"
	MethodToolsCall  = "tools/call"
	MethodToolsList  = "tools/list"
)

// resultComplete is the resultType of a finished request (JR-15).
const resultComplete = "complete"

// resultType is what a result of the era carries in resultType: "complete"
// in the modern era, nothing in the legacy one.
func resultType(modern bool) string {
	if modern {
		return resultComplete
	}
	return ""
}

// listTTLMs is the ttlMs of the fakes' lists and discover result: what they
// offer never changes while they run.
const listTTLMs = 300000

// DiscoverResult is the result of a fake's server/discover response (LC-41).
type DiscoverResult struct {
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	TTLMs             int64          `json:"ttlMs"`
	CacheScope        string         `json:"cacheScope"`
	ResultType        string         `json:"resultType"`
	Meta              map[string]any `json:"_meta"`
}

// DiscoverReply is the success response to server/discover request m from
// a fake of offer o.
func (o Offer) DiscoverReply(m *jsonrpc.Message) *jsonrpc.Message {
	return ResultMessage(m.ID, DiscoverResult{
		SupportedVersions: mcp.ModernProtocolVersions,
		Capabilities:      o.capabilities(),
		TTLMs:             listTTLMs,
		CacheScope:        "public",
		ResultType:        resultComplete,
		Meta:              map[string]any{mcp.MetaServerInfo: fakeInfo},
	})
}

// MethodNotFound is the -32601 a fake answers a method it does not serve with.
func MethodNotFound(m *jsonrpc.Message) *jsonrpc.Message {
	return jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "Method not found")
}

// Base answers request m as a well-behaved fake of offer o does, in the era
// a admitted it to: initialize, ping and tools/list in the legacy era,
// server/discover and tools/list in the modern one, -32601 for anything
// else (tools/call is the cases' to answer, initialize the fakes' own).
func (o Offer) Base(m *jsonrpc.Message, a Admission) *jsonrpc.Message {
	switch {
	case a.Refusal != nil:
		return &jsonrpc.Message{ID: m.ID, Error: a.Refusal}
	case m.Method == MethodToolsList && o.Paged:
		return toolPage(m, a.Modern)
	case m.Method == MethodToolsList:
		return ResultMessage(m.ID, o.ToolList(a.Modern))
	case m.Method == mcp.MethodDiscover && a.Modern:
		return o.DiscoverReply(m)
	case m.Method == "ping" && !a.Modern:
		return ResultMessage(m.ID, struct{}{})
	}
	return MethodNotFound(m)
}

// NotInitialized is what a strict legacy fake answers a request sent before
// initialize with, server/discover included: -32600, as some legacy servers
// refuse whatever comes before the handshake (LC-46: a client's fallback
// must not wait for -32601).
func NotInitialized(m *jsonrpc.Message) *jsonrpc.Message {
	return jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidRequest, "server not initialized: send initialize first")
}
