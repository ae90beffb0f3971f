package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// discoverTTL is how long a client may cache the discover result: the
// server's versions and capabilities never change while it runs.
const discoverTTL = 5 * time.Minute

// modernRequest answers req when it belongs to the 2026-07-28 era, or when
// the server serves that era only; it reports false for a legacy request,
// which the initialize handshake governs. A modern request is stateless
// (JR-51): its version, capabilities and log level come from its own _meta
// (JR-46), never from earlier requests.
//
// A dual-era server keeps a session that answered initialize legacy
// (LC-49): its requests follow the handshake whatever their _meta says.
// Requests without a connection of their own (stateless: a transport that
// serves each one apart) belong to no such session.
//
// A handler that needs the client's input (sampling, elicitation, roots)
// gets it through an InputRequiredResult (mrtr.go, MR-01); one that needs
// a capability the request does not declare gets -32021 (JR-49, MR-04).
func (s *Server) modernRequest(ctx context.Context, conn *serverSession, req *jsonrpc.Message, out func(*jsonrpc.Message) error) (*jsonrpc.Message, bool) {
	if s.opts.Era == EraLegacy || s.opts.Era == EraDual && !conn.stateless && conn.handshaken() {
		return nil, false
	}
	meta, modern := mcp.ModernRequest(req)
	if !modern && s.opts.Era != EraModern {
		return nil, false
	}
	if !modern && req.Method == "initialize" {
		// A modern-only server names its versions in the error (LC-48).
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = mcp.DecodeParams(req.Params, &p)
		if s.opts.Mutant == mutant.InitializeNamesNoVersions {
			return s.respond(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "initialize is not served here"}), true
		}
		return s.respond(req, nil, mcp.UnsupportedVersion(p.ProtocolVersion, mcp.ModernProtocolVersions)), true
	}
	if rpcErr := meta.Problem(); rpcErr != nil && !(s.opts.Mutant == mutant.MissingMetaAccepted && meta.HasVersion) {
		return s.respond(req, nil, rpcErr), true
	}
	if meta.LogLevel != "" && levelIndex(meta.LogLevel) < 0 && s.opts.Mutant != mutant.LogLevelUnknownAccepted {
		return s.respond(req, nil, mcp.InvalidParams(fmt.Sprintf("_meta %q is %q, not a log level; use one of %v", mcp.MetaLogLevel, meta.LogLevel, logLevels))), true
	}
	if !slices.Contains(mcp.ModernProtocolVersions, meta.Version) {
		if s.opts.Mutant == mutant.UnsupportedVersionInvalidParams {
			return s.respond(req, nil, mcp.InvalidParams(fmt.Sprintf("unsupported protocol version %q", meta.Version))), true
		}
		return s.respond(req, nil, mcp.UnsupportedVersion(meta.Version, mcp.ModernProtocolVersions)), true
	}
	handle, ok := s.modernMethod(req.Method)
	if !ok {
		return s.respond(req, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("method %q is not offered by this server in protocol version %s", req.Method, meta.Version)}), true
	}
	return s.runModern(ctx, conn, meta, req, handle, out), true
}

// declares reports whether capabilities (an object) declare feature.
func declares(capabilities json.RawMessage, feature string) bool {
	var c map[string]json.RawMessage
	_ = json.Unmarshal(capabilities, &c)
	v := c[feature]
	return len(v) > 0 && v[0] == '{'
}

// handshaken reports whether the session answered initialize.
func (sess *serverSession) handshaken() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.stage != fresh
}

// modernMethod finds the handler of a modern request method: the legacy
// ones but the handshake, ping, logging/setLevel and resources/subscribe and
// unsubscribe, which the modern era removed, plus server/discover and
// subscriptions/listen.
func (s *Server) modernMethod(name string) (methodHandler, bool) {
	switch name {
	case mcp.MethodDiscover:
		return s.discover, true
	case mcp.MethodListen:
		return s.listen, true
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return nil, false
	}
	if handle, ok := s.taskMethod(name); ok {
		return handle, true
	}
	return s.method(name)
}

// statelessSession is the state of one modern request, made from its _meta.
// The log threshold is the requested logLevel; without one nothing is
// logged (LG-12). Its client capabilities are the request's own (JR-49):
// the input a handler may ask for (MR-04), never by a request (JR-17).
func (s *Server) statelessSession(meta mcp.ModernMeta) *serverSession {
	level := len(logLevels)
	if s.opts.Mutant == mutant.LogsWithoutLevel {
		level = levelIndex(defaultLogLevel)
	}
	if i := levelIndex(meta.LogLevel); i >= 0 {
		level = i
	}
	return &serverSession{
		srv:      s,
		stage:    ready,
		modern:   true,
		version:  meta.Version,
		caps:     readCapabilities(meta.Capabilities, meta.Version),
		level:    level,
		inflight: map[string]*RequestContext{},
		waiting:  map[string]chan *jsonrpc.Message{},
	}
}

// discover answers server/discover (LC-41): the versions served, the
// capabilities, instructions and the cache hints.
func (s *Server) discover(*RequestContext, json.RawMessage) (any, *jsonrpc.Error) {
	result := map[string]any{
		"supportedVersions": mcp.ModernProtocolVersions,
		"capabilities":      s.declaredCapabilities(true),
		"instructions":      instructions,
		"ttlMs":             discoverTTL.Milliseconds(),
		"cacheScope":        "public",
	}
	if s.opts.Mutant == mutant.DiscoverNoSupportedVersions {
		delete(result, "supportedVersions")
	}
	return result, nil
}

// cacheable are the methods whose modern results carry cache hints (TL-19).
var cacheable = map[string]bool{"tools/list": true, "prompts/list": true, "resources/list": true, "resources/read": true, "resources/templates/list": true}

// modernResult stamps a result of the modern era: resultType "complete"
// (JR-15), the server's identity in _meta (JR-48), and for the lists and
// resources/read the cache hints (TL-19): the reference's lists never
// change, and nothing in them depends on who asks.
func (s *Server) modernResult(method string, result any) any {
	raw, err := json.Marshal(result)
	if err != nil {
		return result
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return result
	}
	if _, ok := fields["resultType"]; !ok && s.opts.Mutant != mutant.ResultTypeMissing {
		fields["resultType"] = json.RawMessage(`"complete"`)
	}
	if cacheable[method] && string(fields["resultType"]) != `"`+mcp.ResultTypeInputRequired+`"` {
		fields["ttlMs"], _ = json.Marshal(discoverTTL.Milliseconds())
		fields["cacheScope"] = json.RawMessage(`"public"`)
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(fields["_meta"], &meta)
	if s.opts.Mutant != mutant.ServerInfoMetaMissing {
		meta[mcp.MetaServerInfo], _ = json.Marshal(map[string]string{"name": Name, "version": Version})
	}
	fields["_meta"], _ = json.Marshal(meta)
	return fields
}
